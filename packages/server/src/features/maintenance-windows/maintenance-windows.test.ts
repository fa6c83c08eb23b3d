import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import type { WindowRow } from './maintenance-windows.repo.ts'
import { isActive, occurrencesBetween } from './maintenance-windows.service.ts'

const window = (extra: Partial<WindowRow>): WindowRow => ({
  id: 1,
  account_id: 'a',
  name: 'w',
  tags: '["x"]',
  starts_at: '2026-01-05T22:00:00.000Z',
  ends_at: '2026-01-05T23:30:00.000Z',
  repeat_unit: null,
  repeat_interval: null,
  repeat_ends_at: null,
  timezone: null,
  history_from: '2026-01-01T00:00:00.000Z',
  created_at: '',
  updated_at: '',
  ...extra,
})
const at = (iso: string) => new Date(iso)

describe('maintenance window occurrences', () => {
  test('a one-off window covers [startsAt, endsAt)', () => {
    const w = window({})
    assert.equal(isActive(w, at('2026-01-05T21:59:59.999Z')), false)
    assert.equal(isActive(w, at('2026-01-05T22:00:00.000Z')), true)
    assert.equal(isActive(w, at('2026-01-05T23:29:59.999Z')), true)
    assert.equal(isActive(w, at('2026-01-05T23:30:00.000Z')), false)
    assert.equal(isActive(w, at('2026-01-06T22:30:00.000Z')), false)
  })

  test('the occurrences overlapping a time span are those isActive reads', () => {
    const iso = (pairs: [number, number][]) => pairs.map((p) => p.map((ms) => new Date(ms).toISOString()))
    const span = (from: string, to: string) => [Date.parse(from), Date.parse(to)] as const
    assert.deepEqual(
      iso(occurrencesBetween(window({}), ...span('2026-01-05T23:00:00Z', '2026-02-01T00:00:00Z'))),
      [['2026-01-05T22:00:00.000Z', '2026-01-05T23:30:00.000Z']],
    )
    assert.deepEqual(
      occurrencesBetween(window({}), ...span('2026-01-05T23:30:00Z', '2026-02-01T00:00:00Z')),
      [],
    )
    const daily = window({
      repeat_unit: 'DAY',
      repeat_interval: 2,
      repeat_ends_at: '2026-01-11T22:00:00.000Z',
    })
    assert.deepEqual(
      iso(occurrencesBetween(daily, ...span('2026-01-07T23:00:00Z', '2026-03-01T00:00:00Z'))),
      [
        ['2026-01-07T22:00:00.000Z', '2026-01-07T23:30:00.000Z'],
        ['2026-01-09T22:00:00.000Z', '2026-01-09T23:30:00.000Z'],
        ['2026-01-11T22:00:00.000Z', '2026-01-11T23:30:00.000Z'],
      ],
    )
    const monthly = window({ repeat_unit: 'MONTH', repeat_interval: 1 })
    const months = occurrencesBetween(monthly, ...span('2026-03-01T00:00:00Z', '2026-05-05T22:00:00Z'))
    assert.deepEqual(iso(months), [
      ['2026-03-05T22:00:00.000Z', '2026-03-05T23:30:00.000Z'],
      ['2026-04-05T22:00:00.000Z', '2026-04-05T23:30:00.000Z'],
      ['2026-05-05T22:00:00.000Z', '2026-05-05T23:30:00.000Z'],
    ])
    for (const [from] of months) assert.equal(isActive(monthly, new Date(from)), true)
  })

  test('repeats every N days, weeks or months until repeatEndsAt', () => {
    const daily = window({ repeat_unit: 'DAY', repeat_interval: 2 })
    assert.equal(isActive(daily, at('2026-01-06T22:30:00.000Z')), false, 'every other day')
    assert.equal(isActive(daily, at('2026-01-07T22:30:00.000Z')), true)
    assert.equal(isActive(daily, at('2026-01-07T23:30:00.000Z')), false)
    assert.equal(isActive(daily, at('2027-01-06T22:10:00.000Z')), true, 'a year on (366 days = 183 × 2)')

    const weekly = window({
      repeat_unit: 'WEEK',
      repeat_interval: 1,
      repeat_ends_at: '2026-01-20T00:00:00.000Z',
    })
    assert.equal(isActive(weekly, at('2026-01-12T23:00:00.000Z')), true)
    assert.equal(isActive(weekly, at('2026-01-19T22:00:00.000Z')), true)
    assert.equal(isActive(weekly, at('2026-01-26T22:00:00.000Z')), false, 'over after repeatEndsAt')

    const monthly = window({
      starts_at: '2026-01-31T23:00:00.000Z',
      ends_at: '2026-02-01T01:00:00.000Z',
      repeat_unit: 'MONTH',
      repeat_interval: 1,
    })
    assert.equal(
      isActive(monthly, at('2026-02-28T23:30:00.000Z')),
      true,
      'month ends clamp like calendars do',
    )
    assert.equal(isActive(monthly, at('2026-03-31T23:30:00.000Z')), true)
    assert.equal(isActive(monthly, at('2026-03-15T23:30:00.000Z')), false)
  })
})

for (const engine of testEngines()) {
  describe(`maintenance windows API on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-01-05T12:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    test('CRUD with integer ids; bad ranges are 400s naming the field', async () => {
      const body = {
        name: 'Nightly deploy',
        tags: ['api', 'api'],
        startsAt: '2026-01-05T22:00:00Z',
        endsAt: '2026-01-05T23:00:00Z',
        repeatUnit: 'DAY',
        repeatInterval: 1,
      }
      const created = await t.call({ method: 'POST', url: '/v1/maintenance-windows', payload: body })
      assert.equal(created.statusCode, 201, created.body)
      const w = json(created)
      assert.equal(typeof w.id, 'number')
      assert.deepEqual(
        { ...w, id: 0, created_at: '', updated_at: '' },
        {
          id: 0,
          name: 'Nightly deploy',
          tags: ['api'],
          startsAt: '2026-01-05T22:00:00.000Z',
          endsAt: '2026-01-05T23:00:00.000Z',
          repeatUnit: 'DAY',
          repeatInterval: 1,
          repeatEndsAt: null,
          timezone: null,
          created_at: '',
          updated_at: '',
        },
      )
      const updated = await t.call({
        method: 'PUT',
        url: `/v1/maintenance-windows/${w.id}`,
        payload: { ...body, name: 'Weekly', repeatUnit: 'WEEK' },
      })
      assert.equal(json(updated).repeatUnit, 'WEEK')
      assert.equal(
        json(await t.call({ method: 'GET', url: `/v1/maintenance-windows/${w.id}` })).name,
        'Weekly',
      )
      assert.equal(json(await t.call({ method: 'GET', url: '/v1/maintenance-windows' })).length, 1)

      const cases: [object, string][] = [
        [{ endsAt: '2026-01-05T21:00:00Z' }, 'body.endsAt'],
        [{ tags: [] }, 'body.tags'],
        [{ repeatUnit: 'YEAR' }, 'body.repeatUnit'],
        [{ repeatUnit: null, repeatInterval: 2 }, 'body.repeatUnit'],
        [{ startsAt: 'tomorrow' }, 'body.startsAt'],
      ]
      for (const [extra, path] of cases) {
        const res = await t.call({
          method: 'POST',
          url: '/v1/maintenance-windows',
          payload: { ...body, ...extra },
        })
        assert.equal(res.statusCode, 400, JSON.stringify(extra))
        assert.equal(json(res).attributes.errors[0].path, path, JSON.stringify(extra))
      }
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/maintenance-windows/${w.id}` })).statusCode,
        204,
      )
      assert.equal((await t.call({ method: 'GET', url: `/v1/maintenance-windows/${w.id}` })).statusCode, 404)
    })

    test('simultaneous changes and deletions of a window keep what it gave the past once', async () => {
      const HOUR = 3_600_000
      const body = (startsAtMs: number) => ({
        name: 'Nightly',
        tags: ['simultaneous'],
        startsAt: new Date(startsAtMs).toISOString(),
        endsAt: new Date(startsAtMs + HOUR).toISOString(),
        repeatUnit: 'DAY',
      })
      const created = json(
        await t.call({ method: 'POST', url: '/v1/maintenance-windows', payload: body(nowMs + HOUR) }),
      )
      const first = nowMs + HOUR
      nowMs += 25 * HOUR + HOUR / 2
      const kept = async () =>
        (
          await t.ctx.db
            .selectFrom('maintenance_periods')
            .select(['starts_at', 'ends_at'])
            .where('tags', '=', '["simultaneous"]')
            .orderBy('starts_at')
            .execute()
        ).map((p) => [p.starts_at, p.ends_at])
      const iso = (ms: number) => new Date(ms).toISOString()
      const together = (requests: (() => Promise<{ statusCode: number; body: string }>)[]) =>
        inTurnWhileHeld(t.ctx, holdingTable('maintenance_periods'), requests)
      const moved = body(nowMs + 2 * HOUR)
      const put = () =>
        t.call({ method: 'PUT', url: `/v1/maintenance-windows/${created.id}`, payload: moved })
      const puts = await together([put, put])
      assert.deepEqual(
        puts.map((res) => res.statusCode),
        [200, 200],
      )
      const past = [
        [iso(first), iso(first + HOUR)],
        [iso(first + 24 * HOUR), iso(nowMs)],
      ]
      assert.deepEqual(await kept(), past, 'the occurrences begun, the running one cut at the change, once')

      nowMs += 3 * HOUR
      const remove = () => t.call({ method: 'DELETE', url: `/v1/maintenance-windows/${created.id}` })
      const deletes = await together([remove, remove])
      assert.deepEqual(
        deletes.map((res) => res.statusCode),
        [204, 404],
      )
      assert.deepEqual(await kept(), [...past, [iso(nowMs - HOUR), iso(nowMs)]])
    })
  })
}
