import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { instantAt, wallAt } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import type { WindowRow } from './maintenance-windows.repo.ts'
import { inMaintenance, isActive, occurrencesBetween } from './maintenance-windows.service.ts'

const iso = (ms: number) => new Date(ms).toISOString()
const at = (value: string) => new Date(value)

// Europe/Berlin: clocks jump 02:00 → 03:00 on 2026-03-29 and go back 03:00 → 02:00 on 2026-10-25.
const berlinNightly: WindowRow = {
  id: 1,
  account_id: 'a',
  name: 'nightly',
  tags: '["db"]',
  starts_at: '2026-03-26T01:00:00.000Z', // 02:00 CET
  ends_at: '2026-03-26T02:00:00.000Z', // 03:00 CET
  repeat_unit: 'DAY',
  repeat_interval: 1,
  repeat_ends_at: null,
  timezone: 'Europe/Berlin',
  history_from: '2026-03-01T00:00:00.000Z',
  created_at: '',
  updated_at: '',
}

describe('wall clock of a zone', () => {
  test('reads and places local times, DST included', () => {
    assert.equal(iso(wallAt(Date.parse('2026-03-28T01:30:00Z'), 'Europe/Berlin')), '2026-03-28T02:30:00.000Z')
    assert.equal(iso(wallAt(Date.parse('2026-03-30T00:30:00Z'), 'Europe/Berlin')), '2026-03-30T02:30:00.000Z')
    assert.equal(
      iso(instantAt(Date.parse('2026-03-30T02:30:00Z'), 'Europe/Berlin')),
      '2026-03-30T00:30:00.000Z',
    )
    // 02:30 does not exist on 2026-03-29: counted on at the offset before the jump, 03:30 CEST.
    assert.equal(
      iso(instantAt(Date.parse('2026-03-29T02:30:00Z'), 'Europe/Berlin')),
      '2026-03-29T01:30:00.000Z',
    )
    // 02:30 happens twice on 2026-10-25: the first, still CEST.
    assert.equal(
      iso(instantAt(Date.parse('2026-10-25T02:30:00Z'), 'Europe/Berlin')),
      '2026-10-25T00:30:00.000Z',
    )
    assert.equal(
      iso(instantAt(Date.parse('2026-11-01T09:00:00Z'), 'America/New_York')),
      '2026-11-01T14:00:00.000Z',
    )
  })
})

describe('maintenance window occurrences in a time zone', () => {
  test('a daily 02:00–03:00 Berlin window stays at 02:00 local across both DST changes', () => {
    const spring = occurrencesBetween(
      berlinNightly,
      Date.parse('2026-03-27T12:00:00Z'),
      Date.parse('2026-03-31T12:00:00Z'),
    )
    assert.deepEqual(
      spring.map(([from, to]) => [iso(from), iso(to)]),
      [
        ['2026-03-28T01:00:00.000Z', '2026-03-28T02:00:00.000Z'], // 02:00–03:00 CET
        // 02:00 is skipped that night: 03:00 CEST on, to 03:00 local (the hour lost).
        ['2026-03-29T01:00:00.000Z', '2026-03-29T01:00:00.000Z'],
        ['2026-03-30T00:00:00.000Z', '2026-03-30T01:00:00.000Z'], // 02:00–03:00 CEST
        ['2026-03-31T00:00:00.000Z', '2026-03-31T01:00:00.000Z'],
      ].filter(([from, to]) => from !== to),
    )
    assert.equal(isActive(berlinNightly, at('2026-03-28T01:30:00Z')), true)
    assert.equal(isActive(berlinNightly, at('2026-03-30T00:30:00Z')), true, '02:30 CEST')
    assert.equal(isActive(berlinNightly, at('2026-03-30T01:30:00Z')), false, '03:30 CEST: UTC would say yes')
    const autumn = occurrencesBetween(
      berlinNightly,
      Date.parse('2026-10-24T12:00:00Z'),
      Date.parse('2026-10-26T12:00:00Z'),
    )
    assert.deepEqual(
      autumn.map(([from, to]) => [iso(from), iso(to)]),
      [
        ['2026-10-25T00:00:00.000Z', '2026-10-25T02:00:00.000Z'], // 02:00 CEST to 03:00 CET: two hours that night
        ['2026-10-26T01:00:00.000Z', '2026-10-26T02:00:00.000Z'], // 02:00–03:00 CET
      ],
    )
    assert.equal(isActive(berlinNightly, at('2026-10-26T00:30:00Z')), false, '01:30 CET: UTC would say yes')
    assert.equal(isActive(berlinNightly, at('2026-10-26T01:30:00Z')), true)
  })

  test('without a zone a window repeats in UTC as before', () => {
    const utc = { ...berlinNightly, timezone: null }
    assert.equal(isActive(utc, at('2026-03-30T01:30:00Z')), true)
    assert.equal(isActive(utc, at('2026-03-30T00:30:00Z')), false)
  })
})

for (const engine of testEngines()) {
  describe(`maintenance windows in a time zone on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-03-20T12:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    test('hosted shapes: a zone and date-only days; what alerting reads honours the zone around DST', async () => {
      const created = await t.call({
        method: 'POST',
        url: '/v1/maintenance-windows',
        payload: {
          name: 'Maintenance Window',
          tags: ['db'],
          startsAt: '2026-03-26T02:00:00+01:00',
          endsAt: '2026-03-26T03:00:00+01:00',
          repeatUnit: 'DAY',
          repeatInterval: null,
          repeatEndsAt: '2026-11-01',
          timezone: 'europe/berlin',
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const w = json(created)
      assert.deepEqual(
        [w.startsAt, w.endsAt, w.repeatUnit, w.repeatInterval, w.repeatEndsAt, w.timezone],
        [
          '2026-03-26T01:00:00.000Z',
          '2026-03-26T02:00:00.000Z',
          'DAY',
          1,
          '2026-10-31T23:00:00.000Z',
          'Europe/Berlin',
        ],
      )
      const inMaintenanceAt = async (value: string) => {
        nowMs = Date.parse(value)
        return inMaintenance(t.ctx, t.owner.accountId, ['db'], t.ctx.clock.now())
      }
      assert.equal(await inMaintenanceAt('2026-03-28T01:30:00Z'), true, '02:30 CET')
      assert.equal(await inMaintenanceAt('2026-03-30T00:30:00Z'), true, '02:30 CEST')
      assert.equal(await inMaintenanceAt('2026-03-30T01:30:00Z'), false, '03:30 CEST')
      assert.equal(await inMaintenanceAt('2026-10-26T00:30:00Z'), false, '01:30 CET, past repeatEndsAt')
      assert.equal(await inMaintenanceAt('2026-10-31T01:30:00Z'), true, '02:30 CET, the last day')
      assert.equal(await inMaintenanceAt('2026-11-01T01:30:00Z'), false, 'repeats end')

      const dateOnly = await t.call({
        method: 'POST',
        url: '/v1/maintenance-windows',
        payload: {
          name: 'Day off',
          tags: ['web'],
          startsAt: '2026-11-01',
          endsAt: '2026-11-02',
          repeatUnit: null,
          timezone: 'America/New_York',
        },
      })
      assert.equal(dateOnly.statusCode, 201, dateOnly.body)
      assert.deepEqual(
        [json(dateOnly).startsAt, json(dateOnly).endsAt],
        ['2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z'],
        'midnight EDT to midnight EST',
      )
      const utcDay = json(
        await t.call({
          method: 'POST',
          url: '/v1/maintenance-windows',
          payload: { name: 'UTC day', tags: ['web'], startsAt: '2026-12-01', endsAt: '2026-12-02' },
        }),
      )
      assert.deepEqual([utcDay.startsAt, utcDay.timezone], ['2026-12-01T00:00:00.000Z', null])

      const listed = async (query: string) =>
        json(await t.call({ method: 'GET', url: `/v1/maintenance-windows?${query}` })).map(
          (x: { name: string }) => x.name,
        )
      assert.deepEqual(await listed('startsAt[gte]=2026-11-01'), ['Day off', 'UTC day'])
      assert.deepEqual(await listed('startsAt[gt]=2026-11-01T04:00:00Z&endsAt[lte]=2026-12-02'), ['UTC day'])
      assert.deepEqual(await listed('endsAt[lt]=2026-11-01'), ['Maintenance Window'])
      const badFilter = await t.call({ method: 'GET', url: '/v1/maintenance-windows?startsAt[gte]=soon' })
      assert.equal(badFilter.statusCode, 400)

      const bad = await t.call({
        method: 'POST',
        url: '/v1/maintenance-windows',
        payload: {
          name: 'x',
          tags: ['db'],
          startsAt: '2026-12-01',
          endsAt: '2026-12-02',
          timezone: 'Mars/Olympus',
        },
      })
      assert.equal(bad.statusCode, 400)
      assert.equal(json(bad).attributes.errors[0].path, 'body.timezone')

      const moved = await t.call({
        method: 'PUT',
        url: `/v1/maintenance-windows/${w.id}`,
        payload: {
          name: 'Maintenance Window',
          tags: ['db'],
          startsAt: '2026-03-26T02:00:00+01:00',
          endsAt: '2026-03-26T03:00:00+01:00',
          repeatUnit: 'DAY',
          timezone: null,
        },
      })
      assert.equal(json(moved).timezone, null)
      assert.equal(await inMaintenanceAt('2026-03-30T01:30:00Z'), true, 'UTC again: 01:00–02:00 UTC')
    })
  })
}
