// The reads (and row locks) of checks that other features make: the one door to the checks' tables
// from outside this feature.
export {
  findCheck,
  findCheckById,
  findChecksByHeartbeatTokens,
  listChecks,
  listChecksOfAccount,
  lockCheck,
  lockReferencedChecks,
  tagHistoryAfter,
} from './checks.repo.ts'
