// The reads (and row locks) of private locations and their agents that checks make: the one door to
// their tables from outside this feature.
export {
  findLocation,
  listAccountLocations,
  listAgents,
  lockReferencedSlugs,
} from './private-locations.repo.ts'
