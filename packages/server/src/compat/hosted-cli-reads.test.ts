import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { testEngines } from '@svc/db/testing'
import { SAMPLE_EVENT } from '../features/alert-channels/sample-event.ts'
import { insertNotifications } from '../features/alerting/alert-notifications.repo.ts'
import { ResourceMaker } from '../testing/resource-maker.ts'
import { createTestApp, type TestApp } from '../testing/test-app.ts'

const REPO_ROOT = resolve(import.meta.dirname, '../../../..')
const HOSTED_CLI = join(REPO_ROOT, 'node_modules/checkly/bin/run.cjs')

for (const engine of testEngines()) {
  describe(`the hosted CLI's read commands print svc's data on ${engine.engine}`, () => {
    let t: TestApp
    let a: ResourceMaker
    let home: string
    let url: string
    const made: Record<string, string | number> = {}
    before(async () => {
      t = await createTestApp(engine)
      a = new ResourceMaker(t, t.owner, t.ctx.scripts.artifacts)
      home = mkdtempSync(join(tmpdir(), 'svc-hosted-reads-'))
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
      const check = await a.ok('POST', '/v1/checks/api', {
        name: 'Checkout API',
        tags: ['shop'],
        request: { url: 'http://127.0.0.1:9/checkout' },
      })
      made.checkId = check.id
      made.resultId = (await a.ok('POST', `/v1/checks/${check.id}/trigger`)).id
      await a.ok('POST', '/v1/variables', { key: 'SHOP_URL', value: 'https://shop.example.com' })
      const { statusPageId, serviceId } = await a.pageWithService()
      made.statusPageId = statusPageId
      made.incidentId = (
        await a.ok('POST', '/v1/status-pages/incidents', {
          name: 'Checkout is slow',
          severity: 'MAJOR',
          services: [{ id: serviceId }],
          incidentUpdates: [{ description: 'Looking into it' }],
        })
      ).id
      const channel = await a.ok('POST', '/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'Ops hook', url: 'http://127.0.0.1:9/hook', method: 'POST' },
      })
      made.channelId = channel.id
      const at = new Date().toISOString()
      await insertNotifications(t.ctx, [
        {
          id: randomUUID(),
          account_id: t.owner.accountId,
          channel_id: channel.id,
          channel_type: 'WEBHOOK',
          check_id: check.id,
          alert_type: 'ALERT_FAILURE',
          event: JSON.stringify({ groupId: null, variables: SAMPLE_EVENT }),
          status: 'FAILED',
          attempts: 1,
          next_attempt_ms: Date.parse(at),
          lease_owner: null,
          lease_until_ms: null,
          last_response: JSON.stringify({
            attempt: 1,
            at,
            ok: false,
            statusCode: null,
            body: null,
            error: 'connect ECONNREFUSED',
          }),
          attempt_log: JSON.stringify([
            { attempt: 1, at, ok: false, statusCode: null, body: null, error: 'connect ECONNREFUSED' },
          ]),
          created_at: at,
          position: 0,
          updated_at: at,
          delivered_at: null,
        },
      ])
    })
    after(async () => {
      await t?.close()
      rmSync(home, { recursive: true, force: true })
    })

    const checkly = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(process.execPath, [HOSTED_CLI, ...args], {
        cwd: home,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          XDG_CONFIG_HOME: join(home, '.config'),
          CHECKLY_ENV: 'local',
          CHECKLY_API_URL: url,
          CHECKLY_API_KEY: t.owner.key,
          CHECKLY_ACCOUNT_ID: t.owner.accountId,
          NO_COLOR: '1',
        },
        timeout: 120_000,
      })
      return stdout
    }

    test('checks list, checks get, env ls, status-pages list, incidents list and alert-channels logs', async () => {
      const [list, filtered, get, env, pages, incidents, logs] = await Promise.all([
        checkly('checks', 'list'),
        checkly(
          'checks',
          'list',
          '--search',
          'checkout',
          '--status',
          'failing',
          '--tag',
          'shop',
          '--type',
          'API',
        ),
        checkly('checks', 'get', String(made.checkId)),
        checkly('env', 'ls'),
        checkly('status-pages', 'list'),
        checkly('incidents', 'list'),
        checkly('alert-channels', 'logs', String(made.channelId)),
      ])
      assert.match(list, new RegExp(`Checkout API\\s+API\\s+failing\\s+10m\\s+shop\\s+${made.checkId}`), list)
      assert.match(
        filtered,
        new RegExp(`Checkout API\\s+API\\s+failing\\s+10m\\s+shop\\s+${made.checkId}`),
        filtered,
      )
      // Its stats read the analytics' first bucket: with no aggregationInterval, the whole last 24 hours.
      assert.match(
        get,
        /STATS \(last 24 hours\)\n\n\s+Availability:\s+0\.00%\n\s+Response Time \(avg\):\s+\d+\.\d\d/,
        get,
      )
      assert.match(get, /Status:\s+failing/, get)
      assert.match(get, /URL:\s+http:\/\/127\.0\.0\.1:9\/checkout/, get)
      assert.match(get, /Connection refused: connect ECONNREFUSED/, get)
      assert.match(
        get,
        new RegExp(`RECENT RESULTS\\n.*\\n.*local\\s+error\\s+[\\d.]+m?s\\s+${made.resultId}`),
        get,
      )
      assert.match(env, /SHOP_URL=https:\/\/shop\.example\.com/, env)
      assert.match(pages, new RegExp(`Page\\s+page-\\S+\\s+Card\\s+svc-\\S+\\s+${made.statusPageId}`), pages)
      assert.match(
        incidents,
        new RegExp(`Checkout is slow\\s+major\\s+investigating\\s+1\\s+.*${made.incidentId}`),
        incidents,
      )
      assert.match(
        logs,
        new RegExp(
          `\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\s*failure\\s+webhook\\s+${String(made.checkId).slice(0, 8)}.*connect ECONNREFUSED`,
        ),
        logs,
      )
    })
  })
}
