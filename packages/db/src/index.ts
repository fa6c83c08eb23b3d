export {
  apartFromCommitRecords,
  type CommitRecord,
  currentCommitRecord,
  recordingCommits,
} from './commit-record.ts'
export { createDb, type Engine, MigrationError, migrateToLatest, type Store } from './create-db.ts'
export { isForeignKeyViolation, isStoreBusy, isTransactionConflict, isUniqueViolation } from './errors.ts'
export { fetchPage } from './paging.ts'
export type * from './schema.ts'
