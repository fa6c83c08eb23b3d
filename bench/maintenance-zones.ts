/**
 * bench/maintenance-zones.ts: how long deciding "in maintenance" takes for a daily window repeating in an
 * IANA zone (Europe/Berlin, read through Intl) against the same window in UTC, measured in the same run.
 * Alerting asks once per window of the account per evaluated check, so this is the cost a zone adds.
 * Usage: npm run bench:maintenance-zones [-- --calls 200000]
 */
import { parseArgs } from 'node:util'
import type { WindowRow } from '../packages/server/src/features/maintenance-windows/maintenance-windows.repo.ts'
import { isActive } from '../packages/server/src/features/maintenance-windows/maintenance-windows.service.ts'

const { values } = parseArgs({ options: { calls: { type: 'string', default: '200000' } } })
const calls = Number(values.calls)

const window = (timezone: string | null): WindowRow => ({
  id: 1,
  account_id: 'a',
  name: 'nightly',
  tags: '["db"]',
  starts_at: '2026-01-01T01:00:00.000Z',
  ends_at: '2026-01-01T02:00:00.000Z',
  repeat_unit: 'DAY',
  repeat_interval: 1,
  repeat_ends_at: null,
  timezone,
  history_from: '2026-01-01T00:00:00.000Z',
  created_at: '',
  updated_at: '',
})

/** Mean µs per isActive call over `calls` instants spread across a year (both DST changes included). */
function measure(w: WindowRow): number {
  const from = Date.parse('2026-01-02T00:00:00Z')
  const step = Math.floor((365 * 86_400_000) / calls)
  let active = 0
  for (let i = 0; i < 1000; i++) if (isActive(w, new Date(from + i * step))) active++
  const started = process.hrtime.bigint()
  for (let i = 0; i < calls; i++) if (isActive(w, new Date(from + i * step))) active++
  const micros = Number(process.hrtime.bigint() - started) / 1000
  if (active === 0) throw new Error('no instant fell in the window: the bench measures nothing')
  return micros / calls
}

const utc = measure(window(null))
const zoned = measure(window('Europe/Berlin'))
const utcAgain = measure(window(null))
const baseline = Math.min(utc, utcAgain)
console.log(
  `isActive, UTC window (baseline): ${baseline.toFixed(2)} µs/call (runs: ${utc.toFixed(2)}, ${utcAgain.toFixed(2)})`,
)
console.log(`isActive, Europe/Berlin window:   ${zoned.toFixed(2)} µs/call`)
console.log(`ratio zoned / UTC: ${(zoned / baseline).toFixed(1)}×`)
