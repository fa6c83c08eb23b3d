// The reads of status page incidents that status pages and status sites make: the one door to the
// incidents' tables from outside this feature.
export {
  impactChangesOfPageSince,
  impactsOfPageSince,
  openImpactsOfPage,
  recentIncidentsOfPage,
  updateTimesOfPageSince,
} from './incidents.repo.ts'
