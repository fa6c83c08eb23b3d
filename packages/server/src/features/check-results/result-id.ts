import { randomUUID } from 'node:crypto'

/**
 * A new result's id: a time-ordered UUID (version 7, RFC 9562). New results then land at the end of the
 * primary key's index instead of on random pages, so a batch of results dirties a few pages rather than
 * one each.
 *
 * Its 74 random bits come from a version 4 UUID: Node draws those from a pooled buffer, where the `uuid`
 * package asks the system for 16 bytes per id, which cost a few percent of a busy server's CPU.
 */
export function newResultId(atMs: number = Date.now()): string {
  const random = randomUUID()
  const time = atMs.toString(16).padStart(12, '0')
  // random is xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx: keep all from its version digit on but the digit.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`
}
