import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { AlertNotificationsTable } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { SAMPLE_EVENT } from '../alert-channels/sample-event.ts'
import { insertNotifications } from './alert-notifications.repo.ts'

const attempt = (at: string, ok: boolean, statusCode: number | null, error: string | null = null) => ({
  attempt: 1,
  at,
  ok,
  statusCode,
  body: null,
  error,
})

for (const engine of testEngines()) {
  describe(`the alert delivery log in the hosted shape on ${engine.engine}`, () => {
    let t: TestApp
    /** One delivery of each outcome, a day apart: created on Nov 20, 21, 22 and 23. */
    const made: Record<string, string> = {}
    before(async () => {
      t = await createTestApp(engine)
      const row = (
        day: number,
        status: string,
        log: ReturnType<typeof attempt>[],
      ): AlertNotificationsTable => {
        const created = `2026-11-${day}T10:00:00.000Z`
        return {
          id: randomUUID(),
          account_id: t.owner.accountId,
          channel_id: null,
          channel_type: 'WEBHOOK',
          check_id: null,
          alert_type: 'ALERT_FAILURE',
          event: JSON.stringify({ groupId: null, variables: SAMPLE_EVENT }),
          status,
          attempts: log.length,
          next_attempt_ms: Date.parse(created),
          lease_owner: null,
          lease_until_ms: null,
          last_response: log.length ? JSON.stringify(log.at(-1)) : null,
          attempt_log: JSON.stringify(log),
          created_at: created,
          position: 0,
          updated_at: created,
          delivered_at: status === 'DELIVERED' ? created : null,
        }
      }
      const rows = [
        row(20, 'DELIVERED', [attempt('2026-11-20T10:00:01.000Z', true, 200)]),
        row(21, 'DELIVERED', [
          attempt('2026-11-21T10:00:01.000Z', false, 502),
          attempt('2026-11-21T10:00:21.000Z', true, 200),
        ]),
        row(22, 'FAILED', [attempt('2026-11-22T10:00:01.000Z', false, null, 'connect ECONNREFUSED')]),
        row(23, 'PENDING', []),
      ]
      await insertNotifications(t.ctx, rows)
      for (const [index, name] of ['clean', 'retried', 'failed', 'pending'].entries())
        made[name] = rows[index]!.id
    })
    after(() => t.close())

    const list = async (query: string) => {
      const res = await t.call({ method: 'GET', url: `/v1/alert-notifications?limit=100${query}` })
      assert.equal(res.statusCode, 200, res.body)
      return json(res) as any[]
    }
    const ids = (entries: any[]) => entries.map((e) => e.id).sort()
    const of = (...names: string[]) => names.map((n) => made[n]).sort()

    test('each record carries the hosted fields and statuses beside svc’s', async () => {
      const byId = new Map((await list('')).map((e) => [e.id, e]))
      const clean = byId.get(made.clean)
      assert.equal(clean.status, 'SUCCESS')
      assert.equal(clean.deliveryStatus, 'DELIVERED')
      assert.equal(clean.type, 'WEBHOOK')
      assert.equal(clean.checkType, 'API')
      assert.equal(clean.checkResultId, SAMPLE_EVENT.CHECK_RESULT_ID)
      assert.equal(clean.notificationResult, 'HTTP 200')
      assert.equal(clean.timestamp, '2026-11-20T10:00:01.000Z')
      const failed = byId.get(made.failed)
      assert.deepEqual([failed.status, failed.notificationResult], ['FAILURE', 'connect ECONNREFUSED'])
      const pending = byId.get(made.pending)
      assert.deepEqual(
        [pending.status, pending.notificationResult, pending.timestamp],
        ['IN_PROGRESS', null, null],
      )
    })

    test('from and to bound the creation date; a date alone is its whole day', async () => {
      assert.deepEqual(ids(await list('&from=2026-11-21&to=2026-11-22')), of('retried', 'failed'))
      assert.deepEqual(ids(await list('&from=2026-11-22T10:00:00.001Z')), of('pending'))
      assert.deepEqual(ids(await list('&to=2026-11-21T10:00:00.000Z')), of('clean'))
      const bad = await t.call({ method: 'GET', url: '/v1/alert-notifications?from=yesterday' })
      assert.equal(bad.statusCode, 400)
      assert.match(json(bad).message, /querystring\.from/)
    })

    test('hasFailures: a failed attempt, even one a retry made good', async () => {
      assert.deepEqual(ids(await list('&hasFailures=true')), of('retried', 'failed'))
      assert.deepEqual(ids(await list('&hasFailures=false')), of('clean', 'pending'))
    })

    test('status filters by the hosted names and by svc’s', async () => {
      assert.deepEqual(ids(await list('&status=SUCCESS')), of('clean', 'retried'))
      assert.deepEqual(ids(await list('&status=FAILURE')), of('failed'))
      assert.deepEqual(ids(await list('&status=IN_PROGRESS')), of('pending'))
      assert.deepEqual(await list('&status=RATE_LIMITED'), [])
      assert.deepEqual(ids(await list('&status=FAILED')), of('failed'))
    })
  })
}
