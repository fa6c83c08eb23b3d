// The reads of stored results that other features make (alerting, analytics, error groups, statuses,
// status sites, root cause analyses, agents): the one door to the results' tables from outside this
// feature.
export {
  findResult,
  findResultByJobId,
  isResultStored,
  latestResults,
  type PreviousResult,
  previousHeartbeatResults,
} from './check-results.repo.ts'
export {
  dailyFinalCounts,
  dailyFinalCountsWithin,
  finalResultsAround,
  finalResultsPage,
} from './final-results.repo.ts'
export { currentStatusSince } from './result-statuses.repo.ts'
