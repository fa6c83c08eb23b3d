import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { InsertQueryNode, type KyselyPlugin, ValuesNode } from 'kysely'
import { storeResult } from '../features/alerting/testing.ts'
import { insertResults } from '../features/check-results/check-results.repo.ts'
import { findCheckById } from '../features/checks/checks.repo.ts'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import { unreachableWebhookChannel } from '../testing/webhook-channel.ts'
import { heartbeatResultWrite, storeHeartbeatResult } from './heartbeat-results.ts'
import { writeResult, writeResults } from './store.ts'

const MINUTE = 60_000

/** A plugin that notes the rows of each insert into results (one insert per committed batch). */
function countingResultInserts(): { inserts: number[]; counted: KyselyPlugin } {
  const inserts: number[] = []
  const counted: KyselyPlugin = {
    transformQuery({ node }) {
      if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'results') {
        inserts.push(node.values && ValuesNode.is(node.values) ? node.values.values.length : -1)
      }
      return node
    },
    transformResult: async ({ result }) => result,
  }
  return { inserts, counted }
}

for (const engine of testEngines()) {
  describe(`results written together on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-05-01T10:00:00.000Z')
    let channelId: number
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      channelId = await unreachableWebhookChannel(t)
    })
    after(() => t.close())

    async function apiCheck() {
      const res = await t.call({
        method: 'POST',
        url: '/v1/checks/api?autoAssignAlerts=false',
        payload: {
          name: 'shop',
          activated: false,
          request: { url: 'https://shop.example.com/health' },
          alertChannelSubscriptions: [{ alertChannelId: channelId, activated: true }],
        },
      })
      assert.equal(res.statusCode, 201, res.body)
      return { id: json(res).id as string, accountId: t.owner.accountId }
    }

    /** A heartbeat check created through the API, as its stored row. */
    async function heartbeatCheck(
      name: string,
      heartbeat: Record<string, unknown> = { period: 1, periodUnit: 'hours', grace: 1, graceUnit: 'hours' },
    ) {
      const res = await t.call({ method: 'POST', url: '/v1/checks/heartbeat', payload: { name, heartbeat } })
      assert.equal(res.statusCode, 201, res.body)
      const check = await findCheckById(t.ctx, json(res).id)
      assert.ok(check)
      return check
    }

    const alertTypes = async (checkId: string) =>
      (
        json(await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${checkId}` })) as {
          alertType: string
        }[]
      )
        .map((n) => n.alertType)
        .reverse()

    const rollupTotals = async (checkId: string) =>
      Object.fromEntries(
        (
          await t.ctx.db
            .selectFrom('analytics_rollups')
            .select(['outcome', (eb) => eb.fn.sum<number>('results').as('results')])
            .where('check_id', '=', checkId)
            .where('resolution', '=', 60)
            .groupBy('outcome')
            .execute()
        ).map((row) => [row.outcome, Number(row.results)]),
      )

    const errorGroups = (checkId: string) =>
      t.ctx.db
        .selectFrom('error_groups')
        .select(['error_hash', 'count', 'archived'])
        .where('check_id', '=', checkId)
        .execute()

    test('results written at once fold as if written one by one: same alerts, rollups and error groups', async () => {
      const statuses = [
        'passing',
        'failing',
        'failing',
        'passing',
        'degraded',
        'passing',
        'failing',
        'passing',
      ] as const
      const start = nowMs
      const oneByOne = await apiCheck()
      for (const [i, status] of statuses.entries()) {
        nowMs = start + i * MINUTE
        assert.equal((await storeResult(t.ctx, oneByOne, { status })).stored, true)
      }
      const together = await apiCheck()
      const writes = statuses.map((status, i) => {
        nowMs = start + i * MINUTE
        return storeResult(t.ctx, together, { status })
      })
      assert.deepEqual(
        (await Promise.all(writes)).map((w) => w.stored),
        statuses.map(() => true),
      )

      assert.deepEqual(await alertTypes(oneByOne.id), [
        'ALERT_FAILURE',
        'ALERT_RECOVERY',
        'ALERT_FAILURE',
        'ALERT_RECOVERY',
      ])
      assert.deepEqual(await alertTypes(together.id), await alertTypes(oneByOne.id))
      assert.deepEqual(await rollupTotals(oneByOne.id), { failure: 3, success: 5 })
      assert.deepEqual(await rollupTotals(together.id), await rollupTotals(oneByOne.id))
      const groups = await errorGroups(oneByOne.id)
      assert.equal(groups.length, 1)
      assert.equal(Number(groups[0]?.count), 3)
      assert.equal(Boolean(groups[0]?.archived), true, 'the last result passed')
      assert.deepEqual(await errorGroups(together.id), groups)
    })

    test('heartbeat results written together get the statuses they would get one by one', async () => {
      const check = await heartbeatCheck('cron', {
        period: 1,
        periodUnit: 'hours',
        grace: 30,
        graceUnit: 'minutes',
      })
      const start = Date.parse('2026-06-01T00:00:00.000Z')
      // Minutes from the start: what happened, and the status analytics files it under.
      const events = [
        [0, 'RECEIVED', 'RECEIVED'],
        [65, 'RECEIVED', 'GRACE'],
        [75, 'RECEIVED', 'EARLY'],
        [160, 'RECEIVED', 'GRACE'],
        [200, 'FAIL_PING', 'FAILING'],
        [270, 'MISSED', 'FAILING'],
        [430, 'RECEIVED', 'LATE'],
      ] as const
      await Promise.all(
        events.map(([minute, kind], i) => {
          nowMs = start + minute * MINUTE
          return storeHeartbeatResult(t.ctx, check, { jobId: `beat-${i}`, kind })
        }),
      )
      const hourly = await t.ctx.db
        .selectFrom('analytics_rollups')
        .select(['bucket_ms', 'outcome'])
        .where('check_id', '=', check.id)
        .where('resolution', '=', 60)
        .orderBy('bucket_ms')
        .execute()
      assert.deepEqual(
        hourly.map((row) => [(Number(row.bucket_ms) - start) / 60 / MINUTE, row.outcome]),
        events
          .map(([minute, , status]) => [Math.floor(minute / 60), status])
          .sort((a, b) => Number(a[0]) - Number(b[0]) || String(a[1]).localeCompare(String(b[1]))),
      )
    })

    test('a write that fails fails alone: the others written with it are stored', async () => {
      const check = await apiCheck()
      const outcomes = await Promise.allSettled([
        storeResult(t.ctx, check, { status: 'passing' }),
        storeResult(t.ctx, { id: 'no-such-check', accountId: check.accountId }, { status: 'failing' }),
        storeResult(t.ctx, check, { status: 'failing' }),
      ])
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      )
      const stored = await t.ctx.db
        .selectFrom('check_results')
        .select('has_failures')
        .where('check_id', '=', check.id)
        .execute()
      assert.deepEqual(stored.map((r) => Boolean(r.has_failures)).sort(), [false, true])
      assert.deepEqual(await alertTypes(check.id), ['ALERT_FAILURE'])
    })

    test('a batch handed in at once: one promise per write, a failing write fails alone', async () => {
      const check = await heartbeatCheck('batch')
      const gone = { ...check, id: 'no-such-check' }
      const outcomes = await Promise.allSettled(
        writeResults(t.ctx, [
          heartbeatResultWrite(t.ctx, check, { kind: 'RECEIVED' }),
          heartbeatResultWrite(t.ctx, gone, { kind: 'RECEIVED' }),
          heartbeatResultWrite(t.ctx, check, { kind: 'FAIL_PING' }),
          heartbeatResultWrite(t.ctx, check, { jobId: 'twice', kind: 'RECEIVED' }),
          heartbeatResultWrite(t.ctx, check, { jobId: 'twice', kind: 'RECEIVED' }),
        ]),
      )
      assert.deepEqual(
        outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected')),
        [true, 'rejected', true, true, false],
      )
      const stored = await t.ctx.db
        .selectFrom('check_results')
        .select('error_type')
        .where('check_id', '=', check.id)
        .execute()
      assert.deepEqual(stored.map((r) => r.error_type).sort(), ['HEARTBEAT_FAIL', null, null])
    })

    test('a batch handed in inside a transaction joins it: stored with it, rolled back with it', async () => {
      const check = await heartbeatCheck('in a transaction')
      const inTransaction = (rollBack: boolean) =>
        t.ctx.db
          .transaction()
          .execute(async (db) => {
            const tx = { ...t.ctx, db }
            const stored = await Promise.all(
              writeResults(tx, [
                heartbeatResultWrite(tx, check, { kind: 'RECEIVED' }),
                heartbeatResultWrite(tx, check, { kind: 'FAIL_PING' }),
              ]),
            )
            assert.deepEqual(stored, [true, true])
            if (rollBack) throw new Error('rolled back')
          })
          .catch((error: Error) => assert.equal(error.message, 'rolled back'))
      const count = async () =>
        (await t.ctx.db.selectFrom('check_results').select('id').where('check_id', '=', check.id).execute())
          .length
      await inTransaction(true)
      assert.equal(await count(), 0)
      await inTransaction(false)
      assert.equal(await count(), 2)
    })

    test('on a busy store a result waits a moment to share the next commit; a batch a request awaits does not', async () => {
      const check = await heartbeatCheck('gathered')
      /** Rows per insert into results: one insert per committed batch. */
      const { inserts, counted } = countingResultInserts()
      // A store of its own (its own write queue), whose inserts are counted.
      const ctx = { ...t.ctx, db: t.ctx.db.withPlugin(counted) }
      const received = () => heartbeatResultWrite(ctx, check, { kind: 'RECEIVED' })
      const nextTurn = () => new Promise((turn) => setImmediate(turn))

      // A quiet store commits a result at once.
      assert.equal(await writeResult(ctx, received()), true)
      // Busy now: the next result waits, and one written a turn later shares its commit.
      const waiting = writeResult(ctx, received())
      await nextTurn()
      assert.deepEqual(await Promise.all([waiting, writeResult(ctx, received())]), [true, true])
      // A batch a request waits on (pings) commits at once, busy or not.
      const [pinged] = writeResults(ctx, [received()])
      await nextTurn()
      assert.deepEqual(await Promise.all([pinged, writeResult(ctx, received())]), [true, true])

      assert.deepEqual(inserts, [1, 2, 1, 1])
    })

    test('at spread load a result waits up to resultCommitDelayMs for the next one; at 0 it commits at once', async () => {
      const check = await heartbeatCheck('spread')
      /** Rows per insert into results: one insert per committed batch. */
      const { inserts, counted } = countingResultInserts()
      const db = t.ctx.db.withPlugin(counted)
      // Results further apart than a saturated store's few milliseconds, closer than the wait.
      const apart = () => new Promise((later) => setTimeout(later, 80))
      const spread = { ...t.ctx, db, resultCommitDelayMs: 1000 }
      const received = (ctx: typeof spread) => heartbeatResultWrite(ctx, check, { kind: 'RECEIVED' })

      assert.equal(await writeResult(spread, received(spread)), true)
      await apart()
      const first = writeResult(spread, received(spread))
      await apart()
      assert.deepEqual(await Promise.all([first, writeResult(spread, received(spread))]), [true, true])

      const atOnce = { ...spread, resultCommitDelayMs: 0 }
      await apart()
      const alone = writeResult(atOnce, received(atOnce))
      await apart()
      assert.deepEqual(await Promise.all([alone, writeResult(atOnce, received(atOnce))]), [true, true])

      assert.deepEqual(inserts, [1, 2, 1, 1])
    })

    test("at spread load a result that may alert, or a triggered run's, commits without waiting and ends the wait of a quiet pass", async () => {
      const check = await heartbeatCheck('spread-failing')
      const { inserts, counted } = countingResultInserts()
      const apart = () => new Promise((later) => setTimeout(later, 80))
      const spread = { ...t.ctx, db: t.ctx.db.withPlugin(counted), resultCommitDelayMs: 1000 }
      const write = (kind: 'RECEIVED' | 'MISSED') =>
        writeResult(spread, heartbeatResultWrite(spread, check, { kind }))

      assert.equal(await write('RECEIVED'), true)
      await apart()
      // A failing result at spread load commits alone: the pass written 80 ms later is a batch of its own.
      const failing = write('MISSED')
      await apart()
      assert.deepEqual(await Promise.all([failing, write('RECEIVED')]), [true, true])
      // A quiet pass waits; a failing result written 80 ms later joins it and both commit then.
      await apart()
      const quiet = write('RECEIVED')
      await apart()
      assert.deepEqual(await Promise.all([quiet, write('MISSED')]), [true, true])
      // A triggered run's pass (a test session waits on it) commits at once too.
      await apart()
      const jobId = `trigger:${randomUUID()}`
      const triggered = writeResult(spread, heartbeatResultWrite(spread, check, { kind: 'RECEIVED', jobId }))
      await apart()
      assert.deepEqual(await Promise.all([triggered, write('RECEIVED')]), [true, true])

      assert.deepEqual(inserts, [1, 1, 1, 2, 1, 1])
    })

    test('two writes of one job id written together store one result', async () => {
      const check = await apiCheck()
      const writes = await Promise.all([
        storeResult(t.ctx, check, { status: 'failing', jobId: 'slot-1' }),
        storeResult(t.ctx, check, { status: 'failing', jobId: 'slot-1' }),
      ])
      assert.deepEqual(
        writes.map((w) => w.stored),
        [true, false],
      )
      assert.deepEqual(await rollupTotals(check.id), { failure: 1 })
      assert.deepEqual(await alertTypes(check.id), ['ALERT_FAILURE'])
    })

    test('one result inserted by two transactions at once is stored once, neither fails', async () => {
      // An agent's post retried while the first is in flight carries the same result id and job id; on
      // PostgreSQL both transactions can pass the job id check before either inserts.
      const check = await apiCheck()
      await storeResult(t.ctx, check, { status: 'passing', jobId: 'template' })
      const template = await t.ctx.db
        .selectFrom('check_results')
        .selectAll()
        .where('job_id', '=', 'template')
        .executeTakeFirstOrThrow()
      for (let round = 0; round < 100; round++) {
        const row = { ...template, id: randomUUID(), job_id: `twice-${round}` }
        const inserted = await Promise.all(
          [1, 2].map(() =>
            t.ctx.db.transaction().execute((db) => insertResults({ ...t.ctx, db }, [{ ...row }])),
          ),
        )
        assert.deepEqual(
          inserted.map((ids) => [...ids]).sort((a, b) => b.length - a.length),
          [[row.id], []],
          `round ${round}`,
        )
      }
    })
  })
}
