// The reads of status pages that other features make (incidents, subscribers, services, the public
// site): the one door to the status pages' tables from outside this feature.
export {
  cardsOfPages,
  findPageByDomain,
  findPageById,
  findPageBySlug,
  lockPage,
  pageIdsShowingServices,
} from './status-pages.repo.ts'
