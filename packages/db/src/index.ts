export {
  apartFromCommitRecords,
  type CommitRecord,
  currentCommitRecord,
  recordingCommits,
} from './commit-record.ts'
export { createDb, MigrationError, migrateToLatest, type Store } from './create-db.ts'
export type { Engine } from './engine.ts'
export { isForeignKeyViolation, isStoreBusy, isTransactionConflict, isUniqueViolation } from './errors.ts'
export { fetchPage } from './paging.ts'
export type * from './schema.ts'
export { MERGE_STATS_FUNCTION } from './sqlite.ts'
export { listenToStore, type StoreListener } from './store-notifications.ts'
