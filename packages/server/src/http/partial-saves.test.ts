import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import Fastify from 'fastify'
import { sql } from 'kysely'
import { insertService } from '../features/status-page-services/status-page-services.repo.ts'
import { countHit } from '../rate-limit/rate-limit.repo.ts'
import { deleteSuiteRuns, renewSuiteRuns, saveSuiteRuns } from '../runs/suite-runs.repo.ts'
import { writeLockHeldElsewhere } from '../testing/sqlite-write-lock.ts'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import { handleError } from './errors.ts'
import { recordRequestCommits } from './request-commits.ts'

/**
 * A request that saves in steps (as a group trigger stores each result as it comes) and fails at a later
 * step says some of it was saved; one that failed before anything was saved keeps saying nothing was.
 */
for (const storeEngine of testEngines()) {
  describe(`a request failing after part of it was saved, on ${storeEngine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(storeEngine)
    })
    after(() => t.close())

    const now = new Date().toISOString()
    const serviceRow = (id: string) => ({
      id,
      account_id: t.owner.accountId,
      name: id,
      description: null,
      created_at: now,
      updated_at: now,
    })
    const serviceIds = async (ids: string[]) =>
      (
        await t.store.db
          .selectFrom('status_page_services')
          .select('id')
          .where('id', 'in', ids)
          .orderBy('id')
          .execute()
      ).map((row) => row.id)

    /**
     * An app whose route takes `firstStep`, then waits while the test changes the store as another client
     * does (outside the request), then saves service `second` showing the check in a transaction of its own.
     */
    async function appSavingInSteps(checkId: string, firstStep: () => Promise<unknown>) {
      const app = Fastify()
      app.setErrorHandler(handleError)
      recordRequestCommits(app)
      const firstDone = Promise.withResolvers<void>()
      const goOn = Promise.withResolvers<void>()
      app.post<{ Querystring: { second: string } }>('/save', async (request, reply) => {
        await firstStep()
        firstDone.resolve()
        await goOn.promise
        await insertService(t.ctx, serviceRow(request.query.second), [checkId])
        return reply.status(201).send({})
      })
      /** Sends the request to `url`, running `between` once the first step is over. */
      const send = async (url: string, between: () => Promise<void>) => {
        const answer = app.inject({ method: 'POST', url })
        await firstDone.promise
        try {
          await between()
        } finally {
          goOn.resolve()
        }
        return answer
      }
      return { app, send }
    }

    const createCheck = async () =>
      json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/tcp',
          payload: { name: 'shown', activated: false, request: { hostname: '127.0.0.1', port: 9 } },
        }),
      ).id as string
    const deleteCheck = async (id: string) => {
      const deleted = await t.call({ method: 'DELETE', url: `/v1/checks/${id}` })
      assert.equal(deleted.statusCode, 204, deleted.body)
    }

    test('a check deleted between two saves: 409 saying part was saved, and the first save stays', async () => {
      const checkId = await createCheck()
      const { app, send } = await appSavingInSteps(checkId, () =>
        insertService(t.ctx, serviceRow('svc-step-1'), [checkId]),
      )
      const res = await send('/save?second=svc-step-2', () => deleteCheck(checkId))
      assert.equal(res.statusCode, 409, res.body)
      assert.deepEqual(json(res), {
        statusCode: 409,
        error: 'Conflict',
        message:
          'A resource this request refers to was deleted at the same time: the request stopped part way, after some of its changes were saved',
      })
      assert.deepEqual(await serviceIds(['svc-step-1', 'svc-step-2']), ['svc-step-1'])
      await app.close()
    })

    test('the same request with nothing saved before the failing step still says nothing was saved', async () => {
      const checkId = await createCheck()
      const { app, send } = await appSavingInSteps(checkId, async () => {})
      const res = await send('/save?second=svc-only-step', () => deleteCheck(checkId))
      assert.equal(res.statusCode, 409, res.body)
      assert.equal(
        json(res).message,
        'A resource this request refers to was deleted at the same time: nothing was saved',
      )
      assert.deepEqual(await serviceIds(['svc-only-step']), [])
      await app.close()
    })

    test('reads committed before the failing step are no save', async () => {
      const checkId = await createCheck()
      const { app, send } = await appSavingInSteps(checkId, async () => {
        await t.ctx.db.transaction().execute((tx) => tx.selectFrom('checks').select('id').execute())
        await sql`select 1`.execute(t.ctx.db)
        await t.ctx.db.selectFrom('checks').select('id').execute()
      })
      const res = await send('/save?second=svc-after-reads', () => deleteCheck(checkId))
      assert.equal(
        json(res).message,
        'A resource this request refers to was deleted at the same time: nothing was saved',
      )
      await app.close()
    })

    test('bookkeeping committed before the failing step (a hit counted, a suite run recorded) is no save', async () => {
      const checkId = await createCheck()
      const { app, send } = await appSavingInSteps(checkId, async () => {
        await countHit(t.ctx, 'partial-saves-test', Date.now(), 60_000)
        const run = { jobId: 'trigger:partial-saves', checkId, runner: 'test' }
        await saveSuiteRuns(t.ctx, [run], Date.now() + 60_000)
        await renewSuiteRuns(t.ctx, { jobIds: [run.jobId] }, Date.now(), Date.now() + 60_000)
        await deleteSuiteRuns(t.ctx, [run.jobId])
      })
      const res = await send('/save?second=svc-after-bookkeeping', () => deleteCheck(checkId))
      assert.equal(
        json(res).message,
        'A resource this request refers to was deleted at the same time: nothing was saved',
      )
      await app.close()
    })

    // SQLite has one writer: another process holding it makes the next write wait out the busy timeout.
    if (storeEngine.engine === 'sqlite')
      test('the store busy after a first save: 503 saying part was saved', async () => {
        const checkId = await createCheck()
        // Waits 100 ms for the lock instead of 5 s: the answer is the same, the test quicker.
        t.store.setLockWaitMs(100)
        let lock: Awaited<ReturnType<typeof writeLockHeldElsewhere>> | undefined
        const { app, send } = await appSavingInSteps(checkId, () =>
          insertService(t.ctx, serviceRow('svc-busy-1'), [checkId]),
        )
        try {
          const res = await send('/save?second=svc-busy-2', async () => {
            lock = await writeLockHeldElsewhere(t.store.url)
          })
          assert.equal(res.statusCode, 503, res.body)
          assert.deepEqual(json(res), {
            statusCode: 503,
            error: 'Service Unavailable',
            message:
              'The store is busy: the request stopped part way, after some of its changes were saved; see what it changed before sending it again',
          })
          assert.equal(res.headers['retry-after'], '5')
        } finally {
          await lock?.release()
          t.store.setLockWaitMs(5000)
        }
        assert.deepEqual(await serviceIds(['svc-busy-1', 'svc-busy-2']), ['svc-busy-1'])
        await app.close()
      })

    // A real request saving in steps, on the app as built: the store held by another process while the
    // group's second check runs (its target server takes the lock), so only the first result is stored.
    if (storeEngine.engine === 'sqlite')
      test('a group trigger whose second result finds the store busy: 503 saying part was saved', async (context) => {
        let lock: Awaited<ReturnType<typeof writeLockHeldElsewhere>> | undefined
        const target = createServer(async (request, response) => {
          if (request.url === '/second') lock = await writeLockHeldElsewhere(t.store.url)
          response.end('ok')
        })
        const { url: base } = await listenOnLoopback(target, context)
        const group = json(
          await t.call({
            method: 'POST',
            url: '/v1/check-groups',
            payload: { name: 'steps', concurrency: 1 },
          }),
        )
        const checkAt = async (path: string, groupOrder: number) =>
          json(
            await t.call({
              method: 'POST',
              url: '/v1/checks/url',
              payload: {
                name: path,
                activated: false,
                groupId: group.id,
                groupOrder,
                request: { url: base + path },
              },
            }),
          ).id as string
        const first = await checkAt('/first', 1)
        const second = await checkAt('/second', 2)
        t.store.setLockWaitMs(100)
        let res: Awaited<ReturnType<TestApp['call']>>
        try {
          res = await t.call({ method: 'POST', url: `/v1/check-groups/${group.id}/trigger` })
        } finally {
          await lock?.release()
          t.store.setLockWaitMs(5000)
        }
        assert.equal(res.statusCode, 503, res.body)
        assert.equal(
          json(res).message,
          'The store is busy: the request stopped part way, after some of its changes were saved; see what it changed before sending it again',
        )
        const resultsOf = async (id: string) =>
          json(await t.call({ method: 'GET', url: `/v1/check-results/${id}` })).length as number
        assert.deepEqual([await resultsOf(first), await resultsOf(second)], [1, 0])
      })
  })
}
