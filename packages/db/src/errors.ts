/** True when `error` is a unique-constraint violation, on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown }
  if (code === '23505') return true // PostgreSQL unique_violation
  // node:sqlite: code 'ERR_SQLITE_ERROR', errcode 2067 (SQLITE_CONSTRAINT_UNIQUE) or 1555 (PRIMARYKEY)
  if (errcode === 2067 || errcode === 1555) return true
  return typeof message === 'string' && message.includes('UNIQUE constraint failed')
}
