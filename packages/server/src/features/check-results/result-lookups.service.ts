// The reads of stored results that other features make (alerting, analytics, error groups, statuses,
// status sites, root cause analyses, agents): the one door to the results' tables from outside this
// feature.
export {
  currentStatusSince,
  dailyFinalCounts,
  dailyFinalCountsWithin,
  finalResultsAround,
  finalResultsPage,
  findResult,
  findResultByJobId,
  isResultStored,
  latestResults,
  type PreviousResult,
  previousHeartbeatResults,
} from './check-results.repo.ts'
