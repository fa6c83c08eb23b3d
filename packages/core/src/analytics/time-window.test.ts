import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bucketStarts, resolveWindow, startOfLocalDay } from './time-window.ts'

const iso = (ms: number) => new Date(ms).toISOString()

test('local midnights across DST changes', () => {
  assert.equal(iso(startOfLocalDay(2026, 3, 29, 'Europe/Berlin')), '2026-03-28T23:00:00.000Z')
  assert.equal(iso(startOfLocalDay(2026, 3, 30, 'Europe/Berlin')), '2026-03-29T22:00:00.000Z')
  assert.equal(iso(startOfLocalDay(2026, 11, 1, 'America/New_York')), '2026-11-01T04:00:00.000Z')
  assert.equal(iso(startOfLocalDay(2026, 11, 2, 'America/New_York')), '2026-11-02T05:00:00.000Z')
  assert.equal(iso(startOfLocalDay(2026, 1, 32, 'UTC')), '2026-02-01T00:00:00.000Z', 'day overflow')
  assert.equal(iso(startOfLocalDay(2026, 1, 1, 'Asia/Kolkata')), '2025-12-31T18:30:00.000Z')
  // Santiago skips 00:00 when DST starts (2026-09-06): the day starts at 01:00 local.
  assert.equal(iso(startOfLocalDay(2026, 9, 6, 'America/Santiago')), '2026-09-06T04:00:00.000Z')
})

test('quick ranges in the account time zone; from/to override them', () => {
  // Wednesday 2026-04-01 10:00 in Berlin (CEST, UTC+2).
  const now = Date.parse('2026-04-01T08:00:00.000Z')
  const window = (quickRange: any, tz = 'Europe/Berlin') => {
    const { fromMs, toMs } = resolveWindow({ quickRange }, tz, now)
    return [iso(fromMs), iso(toMs)]
  }
  assert.deepEqual(window('last24Hours'), ['2026-03-31T08:00:00.000Z', '2026-04-01T08:00:00.000Z'])
  assert.deepEqual(window('thisWeek'), ['2026-03-29T22:00:00.000Z', '2026-04-01T08:00:00.000Z'])
  assert.deepEqual(window('lastWeek'), ['2026-03-22T23:00:00.000Z', '2026-03-29T22:00:00.000Z'])
  assert.deepEqual(window('thisMonth'), ['2026-03-31T22:00:00.000Z', '2026-04-01T08:00:00.000Z'])
  assert.deepEqual(window('lastMonth'), ['2026-02-28T23:00:00.000Z', '2026-03-31T22:00:00.000Z'])
  assert.deepEqual(window('lastMonth', 'UTC'), ['2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'])
  assert.deepEqual(window(undefined), window('last24Hours'), 'default last24Hours')
  const custom = resolveWindow(
    { from: 1_700_000_000, to: 1_700_086_400, quickRange: 'lastMonth' },
    'UTC',
    now,
  )
  assert.deepEqual(custom, { fromMs: 1_700_000_000_000, toMs: 1_700_086_400_000 })
})

test('day buckets follow local midnights (23- and 25-hour days); other intervals are fixed', () => {
  const from = startOfLocalDay(2026, 3, 28, 'Europe/Berlin')
  const to = startOfLocalDay(2026, 3, 31, 'Europe/Berlin')
  const days = bucketStarts(from, to, 1440, 'Europe/Berlin')
  assert.deepEqual(days.map(iso), [
    '2026-03-27T23:00:00.000Z',
    '2026-03-28T23:00:00.000Z',
    '2026-03-29T22:00:00.000Z',
  ])
  assert.equal(days[2]! - days[1]!, 23 * 3_600_000, 'the DST day is 23 hours')
  const hours = bucketStarts(from, from + 3 * 3_600_000, 60, 'Europe/Berlin')
  assert.deepEqual(hours, [from, from + 3_600_000, from + 7_200_000])
  const twoDays = bucketStarts(
    Date.parse('2026-01-30T00:00:00Z'),
    Date.parse('2026-02-03T00:00:00Z'),
    2880,
    'UTC',
  )
  assert.deepEqual(twoDays.map(iso), ['2026-01-30T00:00:00.000Z', '2026-02-01T00:00:00.000Z'])
})
