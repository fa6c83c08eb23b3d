import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { FastifyError } from 'fastify'
import { clientErrorOf } from '../../http/errors.ts'
import { heartbeatResultWrite } from '../../runs/heartbeat-results.ts'
import { slotKeyOf } from '../../runs/jobs.ts'
import { createScheduler } from '../../runs/scheduler.ts'
import { claimDueSlots } from '../../runs/schedules.repo.ts'
import { writeResults } from '../../runs/store.ts'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { resolveChecksById } from '../checks/resolve-check.ts'
import { createPingIntake } from './heartbeats.ts'

const SECOND = 1000

for (const engine of testEngines()) {
  describe(`heartbeat checks on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-22T12:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    const createHeartbeat = async (extra: object = {}) =>
      json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/heartbeat',
          payload: {
            name: 'nightly',
            heartbeat: { period: 1, periodUnit: 'minutes', grace: 30, graceUnit: 'seconds' },
            ...extra,
          },
        }),
      )
    const results = async (checkId: string) =>
      json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}?limit=100` })) as {
        hasFailures: boolean
        error: { type: string; message: string } | null
        heartbeatCheckResult: { event: string; method: string | null }
      }[]
    const ping = (path: string, method: 'GET' | 'POST' | 'HEAD' = 'GET') =>
      t.app.inject({ method, url: path })

    test('pings pass and reset the clock; no ping within period + grace fails; /fail fails at once', async () => {
      const check = await createHeartbeat()
      const path = new URL(check.pingUrl).pathname
      const ok = await ping(path)
      assert.equal(ok.statusCode, 200)
      assert.equal(ok.body, 'OK')
      assert.equal((await ping(path, 'POST')).statusCode, 200)
      assert.equal((await ping(path, 'HEAD')).statusCode, 200)
      const received = await results(check.id)
      assert.equal(received.length, 3)
      assert.ok(received.every((r) => !r.hasFailures && r.heartbeatCheckResult.event === 'RECEIVED'))

      const node = createScheduler(t.ctx, { locations: ['heartbeat'], concurrency: 4 })
      nowMs += 89 * SECOND
      assert.equal(await node.runDue(), 0, 'still within period + grace')
      nowMs += 2 * SECOND
      assert.equal(await node.runDue(), 1)
      const [missed] = await results(check.id)
      assert.equal(missed?.hasFailures, true)
      assert.deepEqual(missed?.error, { type: 'TIMEOUT', message: 'No ping within the period and grace' })
      const status = json(await t.call({ method: 'GET', url: `/v1/check-statuses/${check.id}` }))
      assert.equal(status.status, 'failing')

      nowMs += SECOND
      await ping(path)
      assert.equal(
        json(await t.call({ method: 'GET', url: `/v1/check-statuses/${check.id}` })).status,
        'passing',
      )
      nowMs += SECOND
      await ping(`${path}/fail`)
      const [failed] = await results(check.id)
      assert.equal(failed?.hasFailures, true)
      assert.equal(failed?.heartbeatCheckResult.event, 'FAIL_PING')
    })

    test('pings arriving together are each stored once and move each deadline to period + grace', async () => {
      const [a, b] = [await createHeartbeat(), await createHeartbeat()]
      const [pathA, pathB] = [a, b].map((check) => new URL(check.pingUrl).pathname) as [string, string]
      const responses = await Promise.all([
        ...Array.from({ length: 5 }, () => ping(pathA)),
        ping(`${pathA}/fail`),
        ...Array.from({ length: 3 }, () => ping(pathB, 'POST')),
        ping('/ping/unknown-token'),
      ])
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        [200, 200, 200, 200, 200, 200, 200, 200, 200, 404],
      )
      const [resultsA, resultsB] = [await results(a.id), await results(b.id)]
      assert.equal(resultsA.length, 6)
      assert.equal(resultsA.filter((r) => r.hasFailures).length, 1)
      assert.equal(resultsB.length, 3)
      assert.ok(resultsB.every((r) => r.heartbeatCheckResult.method === 'POST'))
      const deadlines = await t.store.db
        .selectFrom('check_schedules')
        .select(['check_id', 'next_due_ms', 'lease_owner'])
        .where('check_id', 'in', [a.id, b.id])
        .orderBy('check_id')
        .execute()
      assert.deepEqual(
        deadlines.map((row) => [row.check_id, Number(row.next_due_ms), row.lease_owner]),
        [a.id, b.id].sort().map((id) => [id, nowMs + 90 * SECOND, null]),
      )
    })

    test('an edit that leaves period and grace alone keeps the deadline the last ping set', async () => {
      const group = json(
        await t.call({ method: 'POST', url: '/v1/check-groups', payload: { name: 'nightly jobs' } }),
      )
      const check = await createHeartbeat({ groupId: group.id })
      await ping(new URL(check.pingUrl).pathname)
      const deadline = async () =>
        Number(
          (
            await t.store.db
              .selectFrom('check_schedules')
              .select('next_due_ms')
              .where('check_id', '=', check.id)
              .executeTakeFirstOrThrow()
          ).next_due_ms,
        )
      const setByPing = nowMs + 90 * SECOND
      assert.equal(await deadline(), setByPing)

      nowMs += 60 * SECOND
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { name: 'renamed' },
      })
      assert.equal(renamed.statusCode, 200)
      const groupEdit = await t.call({
        method: 'PUT',
        url: `/v1/check-groups/${group.id}`,
        payload: { name: 'nightly jobs', tags: ['batch'] },
      })
      assert.equal(groupEdit.statusCode, 200)
      assert.equal(await deadline(), setByPing, 'a rename or a group edit is no ping')

      const node = createScheduler(t.ctx, { locations: ['heartbeat'], concurrency: 4 })
      nowMs += 30 * SECOND
      await node.runDue()
      const [missed] = await results(check.id)
      assert.equal(missed?.heartbeatCheckResult.event, 'MISSED')

      const longer = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { heartbeat: { period: 5, periodUnit: 'minutes', grace: 30, graceUnit: 'seconds' } },
      })
      assert.equal(longer.statusCode, 200)
      assert.equal(await deadline(), nowMs + 330 * SECOND, 'new settings start a new window from the change')
    })

    test('a ping counts whatever body it carries: form (curl -d), binary, text, malformed JSON', async () => {
      const check = await createHeartbeat()
      const path = new URL(check.pingUrl).pathname
      const bodies: [string, string, string][] = [
        [path, 'application/x-www-form-urlencoded', 'job done'],
        [path, 'application/octet-stream', 'backup.tar 1.2 GB'],
        [path, 'text/plain', 'done'],
        [path, 'application/json', '{"job":"backup", '],
        [path, 'application/xml', '<done/>'],
        [`${path}/fail`, 'application/x-www-form-urlencoded', 'exit code 1'],
      ]
      for (const [url, contentType, payload] of bodies) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': contentType },
          payload,
        })
        assert.deepEqual([res.statusCode, res.body], [200, 'OK'], `${contentType} to ${url}`)
      }
      const noType = await t.app.inject({ method: 'POST', url: path, payload: Buffer.from('raw') })
      assert.equal(noType.statusCode, 200, noType.body)
      const stored = await results(check.id)
      assert.deepEqual(stored.map((r) => r.heartbeatCheckResult.event).sort(), [
        'FAIL_PING',
        'RECEIVED',
        'RECEIVED',
        'RECEIVED',
        'RECEIVED',
        'RECEIVED',
        'RECEIVED',
      ])
    })

    test('unknown tokens are 404 in the error shape; a paused heartbeat acknowledges pings only', async () => {
      const unknown = await ping('/ping/not-a-token')
      assert.equal(unknown.statusCode, 404)
      assert.deepEqual(json(unknown), { statusCode: 404, error: 'Not Found', message: 'Unknown heartbeat' })
      const paused = await createHeartbeat({ activated: false })
      assert.equal((await ping(new URL(paused.pingUrl).pathname)).statusCode, 200)
      assert.deepEqual(await results(paused.id), [])

      const group = json(
        await t.call({
          method: 'POST',
          url: '/v1/check-groups',
          payload: { name: 'paused', activated: false },
        }),
      )
      const inPausedGroup = await createHeartbeat({ groupId: group.id })
      assert.equal((await ping(new URL(inPausedGroup.pingUrl).pathname)).statusCode, 200)
      assert.equal((await ping(`${new URL(inPausedGroup.pingUrl).pathname}/fail`)).statusCode, 200)
      assert.deepEqual(await results(inPausedGroup.id), [], 'a paused group pauses its heartbeats too')
    })

    test('a ping racing its check’s deletion answers as an unknown token does: 404 in the error shape', async () => {
      const check = await createHeartbeat({ name: 'deleted while pinged' })
      const token = new URL(check.pingUrl).pathname.split('/')[2] as string
      // The deletion commits between the lookup of the token and the store of the ping's result.
      const intake = createPingIntake(t.ctx, {
        beforeStore: async () => {
          const deleted = await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
          assert.equal(deleted.statusCode, 204, deleted.body)
        },
      })
      const answerTo = (token: string) =>
        intake.record({ token, kind: 'RECEIVED', method: 'GET' }).then(
          () => 'OK',
          (error: FastifyError) => clientErrorOf(error),
        )
      const unknown = await answerTo('never-a-token')
      assert.deepEqual(unknown, {
        statusCode: 404,
        message: 'Unknown heartbeat',
        attributes: undefined,
        headers: {},
      })
      assert.deepEqual(await answerTo(token), unknown)

      // Over HTTP, on PostgreSQL at once: the deletion has locked the check and waits where it deletes
      // what names it; the ping found the check and stores its result then.
      const other = await createHeartbeat({ name: 'deleted while pinged over HTTP' })
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('check_tags'), [
        () => t.call({ method: 'DELETE', url: `/v1/checks/${other.id}` }),
        () => ping(new URL(other.pingUrl).pathname),
      ])
      assert.deepEqual(
        answers.map((res) => [res.statusCode, res.body]),
        [
          [204, ''],
          [404, JSON.stringify({ statusCode: 404, error: 'Not Found', message: 'Unknown heartbeat' })],
        ],
      )
    })

    test('a ping that arrives after the scheduler claimed a missed deadline, before it stored the failure, wins', async () => {
      const check = await createHeartbeat()
      const path = new URL(check.pingUrl).pathname
      await ping(path)
      const firstDeadline = nowMs + 90 * SECOND
      nowMs += 91 * SECOND
      let claimed: number | undefined
      const node = createScheduler(t.ctx, {
        locations: ['heartbeat'],
        concurrency: 100,
        // The race, made deterministic: the ping commits between the claim and the store of the failure.
        beforeMissedDeadlineStored: async (slot) => {
          if (slot.checkId !== check.id) return
          claimed = slot.dueMs
          nowMs += SECOND
          assert.equal((await ping(path)).statusCode, 200)
        },
      })
      await node.runDue()
      assert.equal(claimed, firstDeadline)
      const stored = await results(check.id)
      assert.deepEqual(
        stored.map((r) => [r.heartbeatCheckResult.event, r.hasFailures]),
        [
          ['RECEIVED', false],
          ['RECEIVED', false],
        ],
      )
      const status = json(await t.call({ method: 'GET', url: `/v1/check-statuses/${check.id}` }))
      assert.equal(status.status, 'passing')
      const slot = await t.store.db
        .selectFrom('check_schedules')
        .select(['next_due_ms', 'lease_owner'])
        .where('check_id', '=', check.id)
        .executeTakeFirstOrThrow()
      assert.deepEqual([Number(slot.next_due_ms), slot.lease_owner], [nowMs + 90 * SECOND, null])
      // The ping's deadline holds: nothing is due until it passes.
      nowMs += 89 * SECOND
      await node.runDue()
      assert.equal((await results(check.id)).length, 2)
    })

    test('a missed deadline is dated when it passed, so a ping stored after the failure is the later result', async () => {
      const check = await createHeartbeat()
      const path = new URL(check.pingUrl).pathname
      await ping(path)
      const deadline = nowMs + 90 * SECOND
      nowMs += 95 * SECOND
      const node = createScheduler(t.ctx, { locations: ['heartbeat'], concurrency: 100 })
      await node.runDue()
      const [missed] = (await results(check.id)) as unknown as { startedAt: string; hasFailures: boolean }[]
      assert.deepEqual([missed?.startedAt, missed?.hasFailures], [new Date(deadline).toISOString(), true])
      await ping(path)
      const status = json(await t.call({ method: 'GET', url: `/v1/check-statuses/${check.id}` }))
      assert.equal(status.status, 'passing')
    })

    const slotOf = (checkId: string) =>
      t.store.db
        .selectFrom('check_schedules')
        .select(['next_due_ms', 'lease_owner'])
        .where('check_id', '=', checkId)
        .executeTakeFirstOrThrow()
        .then((slot) => [Number(slot.next_due_ms), slot.lease_owner])
    const statusOf = async (checkId: string) =>
      json(await t.call({ method: 'GET', url: `/v1/check-statuses/${checkId}` })) as {
        status: string
        since: string
      }

    test('misses claimed together are stored together; only the one pinged between claim and store is dropped', async () => {
      const checks = [await createHeartbeat(), await createHeartbeat(), await createHeartbeat()]
      const paths = checks.map((check) => new URL(check.pingUrl).pathname)
      for (const path of paths) await ping(path)
      nowMs += 91 * SECOND
      const ours = new Set(checks.map((check) => check.id))
      const pinged = checks[1]?.id
      let pingStored!: () => void
      const gate = new Promise<void>((open) => {
        pingStored = open
      })
      const claimed: string[] = []
      const node = createScheduler(t.ctx, {
        locations: ['heartbeat'],
        concurrency: 100,
        // All three are claimed; one check's ping commits before any of their misses is stored, and the
        // misses then reach the store in the same turn (one batch).
        beforeMissedDeadlineStored: async (slot) => {
          if (!ours.has(slot.checkId)) return
          claimed.push(slot.checkId)
          if (slot.checkId === pinged) {
            assert.equal((await ping(paths[1] as string)).statusCode, 200)
            pingStored()
          }
          await gate
        },
      })
      await node.runDue()
      assert.deepEqual(claimed.toSorted(), [...ours].sort())
      const events = async (checkId: string) =>
        (await results(checkId)).map((r) => [r.heartbeatCheckResult.event, r.hasFailures])
      const missed = [
        ['MISSED', true],
        ['RECEIVED', false],
      ]
      assert.deepEqual(
        [await events(checks[0]?.id), await events(checks[1]?.id), await events(checks[2]?.id)],
        [
          missed,
          [
            ['RECEIVED', false],
            ['RECEIVED', false],
          ],
          missed,
        ],
      )
      assert.deepEqual(
        [
          (await statusOf(checks[0]?.id)).status,
          (await statusOf(checks[1]?.id)).status,
          (await statusOf(checks[2]?.id)).status,
        ],
        ['failing', 'passing', 'failing'],
      )
      // The misses moved their deadlines a period on; the ping's deadline (period + grace) holds.
      assert.deepEqual(
        [await slotOf(checks[0]?.id), await slotOf(checks[1]?.id), await slotOf(checks[2]?.id)],
        [
          [nowMs + 60 * SECOND, null],
          [nowMs + 90 * SECOND, null],
          [nowMs + 60 * SECOND, null],
        ],
      )
    })

    test('a ping stored in the same batch as a claimed miss of its check wins; the miss is dropped', async () => {
      const check = await createHeartbeat()
      await ping(new URL(check.pingUrl).pathname)
      nowMs += 91 * SECOND
      const owner = 'node-same-batch'
      const claim = { owner, nowMs, leaseMs: 30_000, locations: ['heartbeat'], limit: 1000 }
      const slot = (await claimDueSlots(t.ctx, claim)).find((claimed) => claimed.checkId === check.id)
      assert.ok(slot)
      const resolved = (await resolveChecksById(t.ctx, [check.id])).get(check.id)
      assert.ok(resolved)
      const at = (ms: number) => ({ checkId: check.id, location: 'heartbeat', nextDueMs: ms })
      const miss = heartbeatResultWrite(
        t.ctx,
        resolved.row,
        { jobId: slotKeyOf(slot), kind: 'MISSED', at: new Date(slot.dueMs) },
        resolved,
        { ...at(nowMs + 60 * SECOND), leaseOwner: owner },
      )
      const received = heartbeatResultWrite(
        t.ctx,
        resolved.row,
        { kind: 'RECEIVED', method: 'GET' },
        resolved,
        at(nowMs + 90 * SECOND),
      )
      const stored = await Promise.all(
        writeResults(t.ctx, [{ ...miss, whileLeased: { ...slot, owner } }, received]),
      )
      assert.deepEqual(stored, [false, true])
      assert.deepEqual(
        (await results(check.id)).map((r) => r.heartbeatCheckResult.event),
        ['RECEIVED', 'RECEIVED'],
      )
      assert.deepEqual(await slotOf(check.id), [nowMs + 90 * SECOND, null])
    })

    test('a ping in the very millisecond of the deadline wins over the miss stored just before it', async () => {
      const check = await createHeartbeat()
      const path = new URL(check.pingUrl).pathname
      await ping(path)
      const pingedAt = nowMs
      nowMs += 90 * SECOND
      const deadline = new Date(nowMs).toISOString()
      const node = createScheduler(t.ctx, { locations: ['heartbeat'], concurrency: 100 })
      await node.runDue()
      assert.equal((await results(check.id))[0]?.heartbeatCheckResult.event, 'MISSED')
      // Arrived by the deadline, stored after its miss: the later result, whatever the store returns first.
      await ping(path)
      const stored = (await results(check.id)) as unknown as {
        startedAt: string
        heartbeatCheckResult: { event: string }
      }[]
      assert.deepEqual(
        stored.map((r) => [r.heartbeatCheckResult.event, r.startedAt]),
        [
          ['RECEIVED', deadline],
          ['MISSED', deadline],
          ['RECEIVED', new Date(pingedAt).toISOString()],
        ],
      )
      const status = await statusOf(check.id)
      assert.deepEqual([status.status, status.since], ['passing', deadline])
      const listed = json(await t.call({ method: 'GET', url: '/v1/check-statuses?limit=100' })) as {
        checkId: string
        status: string
      }[]
      assert.equal(listed.find((s) => s.checkId === check.id)?.status, 'passing')
    })
  })
}
