export { createDb, type Engine, migrateToLatest, type Store } from './create-db.ts'
export { isForeignKeyViolation, isUniqueViolation } from './errors.ts'
export { fetchPage } from './paging.ts'
export type * from './schema.ts'
