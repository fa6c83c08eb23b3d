/** True when `error` is a unique-constraint violation, on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown }
  if (code === '23505') return true // PostgreSQL unique_violation
  // node:sqlite: code 'ERR_SQLITE_ERROR', errcode 2067 (SQLITE_CONSTRAINT_UNIQUE) or 1555 (PRIMARYKEY)
  if (errcode === 2067 || errcode === 1555) return true
  return typeof message === 'string' && message.includes('UNIQUE constraint failed')
}

/**
 * True when `error` is a foreign-key violation, on either engine: a write naming a row that is gone
 * (deleted meanwhile), or the deletion of a row still named without a cascade.
 */
export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown }
  if (code === '23503') return true // PostgreSQL foreign_key_violation
  if (errcode === 787) return true // node:sqlite: SQLITE_CONSTRAINT_FOREIGNKEY
  return typeof message === 'string' && message.includes('FOREIGN KEY constraint failed')
}

/**
 * True when PostgreSQL ended a transaction because of others running at the same time: it was chosen to
 * break a deadlock (40P01), or it could not be serialized with them (40001). Nothing it wrote was kept.
 */
export function isTransactionConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code } = error as { code?: unknown }
  return code === '40P01' || code === '40001'
}

/**
 * True when SQLite gave up waiting (its busy timeout) for the write lock another connection holds (a
 * runner process writing to the same file in a long transaction): nothing was written.
 */
export function isStoreBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { errcode } = error as { errcode?: unknown }
  // SQLITE_BUSY (5) and its extended codes (SQLITE_BUSY_RECOVERY, _SNAPSHOT, _TIMEOUT).
  return typeof errcode === 'number' && (errcode & 0xff) === 5
}
