// What the agent protocol reads and records of a private location's agents (and the location row it
// locks): the one door to the agents' tables from the agent-facing half of private locations.
export {
  deleteAgent,
  findLocationByKeyHash,
  insertAgentEvent,
  listAgents,
  lockLocation,
  saveAgent,
} from './private-locations.repo.ts'
