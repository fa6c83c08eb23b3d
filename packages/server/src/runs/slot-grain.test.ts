import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import { createScheduler } from './scheduler.ts'
import { listSchedule } from './schedules.repo.ts'
import { slotGrainFor } from './slot-grain.ts'

const MINUTE = 60_000

const CONCURRENCY = 20

test('a quiet process plans on the coarsest grain whose slots start all their runs at once', () => {
  assert.equal(slotGrainFor(1000, 200, CONCURRENCY), 6000, '200 runs a minute: 20 per 6 s slot')
  assert.equal(slotGrainFor(1000, 500, CONCURRENCY), 2000, '500 runs a minute: ~17 per 2 s slot')
  assert.equal(slotGrainFor(1000, 100, CONCURRENCY), 10_000, 'never coarser than 10 s')
  assert.equal(slotGrainFor(1000, 0, CONCURRENCY), 10_000)
  assert.equal(slotGrainFor(1000, 1000, 100), 6000, 'a higher concurrency takes bigger slots')
})

test('a busy process keeps whole seconds', () => {
  assert.equal(slotGrainFor(1000, 1000, CONCURRENCY), 1000, '1,000 runs a minute: ~17 per second')
  assert.equal(
    slotGrainFor(1000, 10_000, CONCURRENCY),
    1000,
    'even when a second holds more than the concurrency',
  )
  assert.equal(slotGrainFor(6000, 10_000, CONCURRENCY), 1000, 'load that grows past a coarse grain ends it')
})

test('a grain holds until its slots hold a quarter more than the concurrency', () => {
  assert.equal(slotGrainFor(6000, 240, CONCURRENCY), 6000, '24 per slot: kept')
  assert.equal(slotGrainFor(6000, 250, CONCURRENCY), 6000, '25 per slot: kept')
  assert.equal(slotGrainFor(6000, 260, CONCURRENCY), 4000, '26 per slot: the coarsest that fits, 4 s (~17)')
  assert.equal(slotGrainFor(4000, 240, CONCURRENCY), 5000, 'a coarser grain that fits is taken at once')
})

for (const engine of testEngines()) {
  describe(`the scheduler's slot grain on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-30T12:00:00.000Z')
    const target = createServer((_request, response) => response.end('ok'))
    let base = ''
    before(async () => {
      base = (await listenOnLoopback(target)).url
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      target.close()
      await t.close()
    })
    const dueOf = async (checkId: string) => Number((await listSchedule(t.ctx, checkId))[0]?.next_due_ms)
    const urlCheck = async () =>
      json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'grain', frequency: 1, request: { url: `${base}/` } },
        }),
      )

    test('a quiet scheduler moves its checks onto a coarser grain after a minute, and back without a second run', async () => {
      // A check whose whole-second slot is off the 10 s grain, so that the grain moves it.
      let check = await urlCheck()
      while ((await dueOf(check.id)) % 10_000 === 0) {
        await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
        check = await urlCheck()
      }
      const quiet = createScheduler(t.ctx, { locations: ['local'], concurrency: 4, adaptSlotGrain: true })
      const first = await dueOf(check.id)
      assert.equal(first % 1000, 0, 'a new check starts on whole seconds')
      nowMs = first
      assert.equal(await quiet.runDue(), 1)
      assert.equal(
        await dueOf(check.id),
        first + MINUTE,
        'within its first minute the scheduler keeps whole seconds',
      )

      nowMs = first + MINUTE
      assert.equal(await quiet.runDue(), 1)
      assert.equal(t.ctx.slotGrain.ms, 10_000, 'two runs in a minute for 4 places: the coarsest grain')
      const movedBy = first % 10_000
      assert.ok(movedBy > 0)
      const second = await dueOf(check.id)
      assert.equal(second, first + 2 * MINUTE - movedBy, 'the next slot falls on 10 s, earlier by under 10 s')

      // A busier node plans on whole seconds again: the check moves later, but not into this minute.
      t.ctx.slotGrain.ms = 1000
      nowMs = second
      assert.equal(await createScheduler(t.ctx, { locations: ['local'], concurrency: 4 }).runDue(), 1)
      assert.equal(await dueOf(check.id), second + MINUTE + movedBy)
    })

    test('a scheduler that keeps heartbeat deadlines alone leaves the grain to the runners', async () => {
      t.ctx.slotGrain.ms = 1000
      const deadlines = createScheduler(t.ctx, {
        locations: ['heartbeat'],
        concurrency: 4,
        adaptSlotGrain: true,
      })
      nowMs += 2 * MINUTE
      await deadlines.runDue()
      nowMs += 2 * MINUTE
      await deadlines.runDue()
      assert.equal(t.ctx.slotGrain.ms, 1000)
    })
  })
}
