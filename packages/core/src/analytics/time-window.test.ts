import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bucketStarts, localMidnights, resolveWindow, rollupRanges, startOfLocalDay } from './time-window.ts'

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

test('with a cap, bucket starts stop just past it on every path (no billions laid out)', () => {
  const to = 253402300799_000
  for (const interval of [1, 7, 1440]) {
    const starts = bucketStarts(0, to, interval, 'Europe/Berlin', 100)
    assert.ok(starts.length > 100, `${interval}: ${starts.length}`)
    assert.ok(starts.length <= 100 + 1440, `${interval}: ${starts.length}`)
    assert.equal(starts[0], 0)
  }
  assert.equal(bucketStarts(0, 10 * 60_000, 1, 'UTC', 100).length, 10, 'under the cap: all of them')
})

test('sub-day intervals are laid on a grid from each local midnight; the first bucket is clipped', () => {
  // Kolkata is UTC+5:30: hour buckets start on the local hour, so at :30 UTC.
  const from = Date.parse('2026-01-01T10:10:00Z')
  const hours = bucketStarts(from, from + 3 * 3_600_000, 60, 'Asia/Kolkata')
  assert.deepEqual(hours.map(iso), [
    '2026-01-01T10:10:00.000Z',
    '2026-01-01T10:30:00.000Z',
    '2026-01-01T11:30:00.000Z',
    '2026-01-01T12:30:00.000Z',
  ])
  // New York's 25-hour day (2026-11-01) has 25 hour buckets; with 7-hour buckets the last one is cut at midnight.
  const day = startOfLocalDay(2026, 11, 1, 'America/New_York')
  const next = startOfLocalDay(2026, 11, 2, 'America/New_York')
  assert.equal(bucketStarts(day, next, 60, 'America/New_York').length, 25)
  const sixes = bucketStarts(day, next + 3_600_000, 360, 'America/New_York')
  assert.deepEqual(
    sixes.map((s) => (s - day) / 3_600_000),
    [0, 6, 12, 18, 24, 25],
  )
  // An interval that doesn't divide a day counts from `from`.
  assert.deepEqual(bucketStarts(from, from + 200 * 60_000, 100, 'UTC'), [from, from + 100 * 60_000])
})

test('rollup ranges: minutes to the hour, hours to a day row, days, and back', () => {
  const at = (s: string) => Date.parse(s)
  const utcDays = localMidnights(at('2026-01-01T10:37:00Z'), at('2026-01-04T13:05:00Z'), 'UTC')
  assert.deepEqual(utcDays.map(iso), [
    '2026-01-01T00:00:00.000Z',
    '2026-01-02T00:00:00.000Z',
    '2026-01-03T00:00:00.000Z',
    '2026-01-04T00:00:00.000Z',
    '2026-01-05T00:00:00.000Z',
  ])
  const ranges = rollupRanges([at('2026-01-01T10:37:00Z'), at('2026-01-04T13:05:00Z')], utcDays)
  const shown = (list: { resolution: number; fromMs: number; toMs: number }[]) =>
    list.map((r) => [r.resolution, iso(r.fromMs), iso(r.toMs)])
  assert.deepEqual(shown(ranges), [
    [1, '2026-01-01T10:37:00.000Z', '2026-01-01T11:00:00.000Z'],
    [60, '2026-01-01T11:00:00.000Z', '2026-01-02T00:00:00.000Z'],
    [1440, '2026-01-02T00:00:00.000Z', '2026-01-04T00:00:00.000Z'],
    [60, '2026-01-04T00:00:00.000Z', '2026-01-04T13:00:00.000Z'],
    [1, '2026-01-04T13:00:00.000Z', '2026-01-04T13:05:00.000Z'],
  ])
  // Without day rows (not complete yet), hours all the way; touching ranges are joined.
  assert.deepEqual(shown(rollupRanges([at('2026-01-10T23:00:00Z'), at('2026-01-13T23:00:00Z')])), [
    [60, '2026-01-10T23:00:00.000Z', '2026-01-13T23:00:00.000Z'],
  ])
  // Kolkata days (UTC+5:30) in day buckets: day rows only, hour and minute rows around the partial ends.
  const from = at('2026-01-10T12:00:00Z')
  const to = at('2026-01-14T06:10:00Z')
  const kolkata = localMidnights(from, to, 'Asia/Kolkata')
  const buckets = bucketStarts(from, to, 1440, 'Asia/Kolkata')
  assert.deepEqual(shown(rollupRanges([...buckets, to], kolkata)), [
    [60, '2026-01-10T12:00:00.000Z', '2026-01-10T18:00:00.000Z'],
    [1, '2026-01-10T18:00:00.000Z', '2026-01-10T18:30:00.000Z'],
    [1440, '2026-01-10T18:30:00.000Z', '2026-01-13T18:30:00.000Z'],
    [1, '2026-01-13T18:30:00.000Z', '2026-01-13T19:00:00.000Z'],
    [60, '2026-01-13T19:00:00.000Z', '2026-01-14T06:00:00.000Z'],
    [1, '2026-01-14T06:00:00.000Z', '2026-01-14T06:10:00.000Z'],
  ])
  // Day rows complete only from a later midnight on (the zone changed): hours before it.
  assert.deepEqual(shown(rollupRanges([...buckets, to], kolkata.slice(2))), [
    [60, '2026-01-10T12:00:00.000Z', '2026-01-10T18:00:00.000Z'],
    [1, '2026-01-10T18:00:00.000Z', '2026-01-10T19:00:00.000Z'],
    [60, '2026-01-10T19:00:00.000Z', '2026-01-11T18:00:00.000Z'],
    [1, '2026-01-11T18:00:00.000Z', '2026-01-11T18:30:00.000Z'],
    [1440, '2026-01-11T18:30:00.000Z', '2026-01-13T18:30:00.000Z'],
    [1, '2026-01-13T18:30:00.000Z', '2026-01-13T19:00:00.000Z'],
    [60, '2026-01-13T19:00:00.000Z', '2026-01-14T06:00:00.000Z'],
    [1, '2026-01-14T06:00:00.000Z', '2026-01-14T06:10:00.000Z'],
  ])
})
