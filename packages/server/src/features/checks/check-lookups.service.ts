// The reads (and row locks) of checks that other features make, and what the retention sweep deletes:
// the one door to the checks' tables from outside this feature.
export {
  accountIdsOfChecks,
  findCheck,
  findCheckById,
  findChecksByHeartbeatTokens,
  listChecks,
  listChecksOfAccount,
  lockCheck,
  lockReferencedCheck,
  lockReferencedChecks,
  lockReferencedChecksById,
  pruneTagHistory,
  tagHistoryAfter,
} from './checks.repo.ts'
