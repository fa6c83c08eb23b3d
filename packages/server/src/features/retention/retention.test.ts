import assert from 'node:assert/strict'
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import type { LocalArtifactStore } from '../artifacts/artifact-store.ts'
import { pruneArtifacts, pruneResults } from './retention.service.ts'

const DAY = 86_400_000

for (const engine of testEngines()) {
  describe(`result retention on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-01-01T00:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    test("results older than the account's retention (capped by the deployment's) are deleted", async () => {
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/heartbeat',
          payload: {
            name: 'hb',
            heartbeat: { period: 1, periodUnit: 'hours', grace: 0, graceUnit: 'seconds' },
          },
        }),
      )
      const path = new URL(check.pingUrl).pathname
      for (const ageDays of [40, 20, 5]) {
        nowMs = Date.parse('2026-03-01T00:00:00.000Z') - ageDays * DAY
        await t.app.inject({ method: 'GET', url: path })
      }
      nowMs = Date.parse('2026-03-01T00:00:00.000Z')
      const count = async () =>
        json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` })).length

      assert.equal(await pruneResults(t.ctx, 400), 1, 'the default 30 days keeps two of three')
      assert.equal(await count(), 2)
      await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { resultRetentionDays: 100 } },
      })
      assert.equal(await pruneResults(t.ctx, 10), 1, 'the deployment cap wins over a longer account setting')
      assert.equal(await count(), 1)
    })

    test("artifacts older than the account's traceRetentionDays go, and those of deleted checks", async () => {
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/browser',
          payload: { name: 'b', script: 'console.log(1)', activated: false },
        }),
      )
      const { root } = t.ctx.scripts.artifacts as LocalArtifactStore
      const resultDir = (checkId: string, resultId: string, ageDays: number) => {
        const dir = join(root, checkId, resultId)
        mkdirSync(dir, { recursive: true })
        writeFileSync(join(dir, 'trace-1.zip'), 'PK')
        writeFileSync(join(dir, 'video-1.webm'), Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))
        const at = new Date(nowMs - ageDays * DAY)
        utimesSync(dir, at, at)
        return dir
      }
      const fresh = resultDir(check.id, 'fresh', 2)
      const old = resultDir(check.id, 'old', 8)
      const orphan = resultDir('00000000-0000-4000-8000-000000000000', 'gone', 0)
      assert.equal(await pruneArtifacts(t.ctx), 1, 'the default 7 days')
      assert.deepEqual([existsSync(fresh), existsSync(old), existsSync(orphan)], [true, false, false])
      await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { traceRetentionDays: 1 } },
      })
      assert.equal(await pruneArtifacts(t.ctx), 1)
      assert.equal(existsSync(fresh), false)
    })

    test('finished alert deliveries go with the results of their time; pending ones stay', async () => {
      const channel = json(
        await t.call({
          method: 'POST',
          url: '/v1/alert-channels',
          payload: { type: 'WEBHOOK', config: { name: 'old', url: 'http://127.0.0.1:9/hook' } },
        }),
      )
      const sent = await t.call({ method: 'POST', url: `/v1/alert-channels/${channel.id}/test` })
      assert.equal(sent.statusCode, 200, sent.body)
      const finished = await t.store.db
        .selectFrom('alert_notifications')
        .selectAll()
        .executeTakeFirstOrThrow()
      assert.notEqual(finished.status, 'PENDING')
      await t.store.db
        .insertInto('alert_notifications')
        .values({ ...finished, id: '00000000-0000-4000-8000-00000000000a', status: 'PENDING' })
        .execute()
      nowMs += 400 * DAY
      await pruneResults(t.ctx, 400)
      const left = await t.store.db.selectFrom('alert_notifications').select(['id', 'status']).execute()
      assert.deepEqual(
        left.map((row) => ({ ...row })),
        [{ id: '00000000-0000-4000-8000-00000000000a', status: 'PENDING' }],
      )
    })

    test('sessions go with the results of their time; an unsaved run keeps its artifacts while it exists', async () => {
      await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { resultRetentionDays: 100, traceRetentionDays: 7 } },
      })
      const runSession = async (name: string) => {
        const run = await t.call({
          method: 'POST',
          url: '/v1/test-sessions/run',
          payload: {
            name,
            checkRunJobs: [
              { logicalId: 'up', checkType: 'API', name: 'Up', request: { url: 'http://127.0.0.1:9/' } },
            ],
          },
        })
        assert.equal(run.statusCode, 201, run.body)
        const id = json(run).testSessionId as string
        const { id: runId } = await t.store.db
          .selectFrom('session_runs')
          .select('id')
          .where('session_id', '=', id)
          .executeTakeFirstOrThrow()
        return { id, runId }
      }
      const { root } = t.ctx.scripts.artifacts as LocalArtifactStore
      const artifactsOf = (runId: string) => {
        const dir = join(root, runId, runId)
        mkdirSync(dir, { recursive: true })
        writeFileSync(join(dir, 'trace-1.zip'), 'PK')
        const at = new Date(nowMs)
        utimesSync(dir, at, at)
        return dir
      }
      const old = await runSession('old')
      nowMs += 50 * DAY
      const fresh = await runSession('fresh')
      nowMs += 60 * DAY
      const oldArtifacts = artifactsOf(old.runId)
      const freshArtifacts = artifactsOf(fresh.runId)
      assert.equal(await pruneArtifacts(t.ctx), 0, "a run's artifacts are not those of a deleted check")
      assert.deepEqual([existsSync(oldArtifacts), existsSync(freshArtifacts)], [true, true])

      await pruneResults(t.ctx, 400)
      const status = async (id: string) =>
        (await t.call({ method: 'GET', url: `/v1/test-sessions/${id}` })).statusCode
      assert.deepEqual([await status(old.id), await status(fresh.id)], [404, 200])
      await pruneArtifacts(t.ctx)
      assert.deepEqual([existsSync(oldArtifacts), existsSync(freshArtifacts)], [false, true])
    })
  })
}
