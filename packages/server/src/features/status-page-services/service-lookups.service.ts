// The reads (and row locks) of status page services that status pages, incidents and status sites make,
// and the uptime days status sites keep per service: the one door to their tables from outside this
// feature.
export {
  checkIdsOfServices,
  findService,
  findServices,
  keepServiceDays,
  lockReferencedServiceIds,
  serviceDaysOf,
  servicesOfCheck,
} from './status-page-services.repo.ts'
