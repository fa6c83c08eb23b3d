import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'
import { createSessionWorker, type SessionWorker } from './session-runner.ts'

const ok = [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }]

for (const engine of testEngines()) {
  describe(`test sessions, check sessions and trigger URLs on ${engine.engine}`, () => {
    let t: TestApp
    let target: Server
    let base: string
    let worker: SessionWorker
    before(async () => {
      t = await createTestApp(engine)
      target = createServer((req, res) => {
        res.statusCode = req.url === '/ok' ? 200 : 500
        res.end('{"up":true}')
      })
      target.listen(0, '127.0.0.1')
      await once(target, 'listening')
      base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`
      worker = createSessionWorker(t.ctx, {
        lifeId: 'test-life',
        locations: ['local'],
        concurrency: 2,
        log: { error: (details, message) => console.error(message, details) },
      })
      worker.start()
    })
    after(async () => {
      await worker?.stop()
      target?.close()
      await t?.close()
    })

    const createApiCheck = async (name: string, path: string, tags: string[]) => {
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: {
          name,
          activated: false,
          tags,
          locations: ['local'],
          request: { url: base + path, assertions: ok },
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      return json(created).id as string
    }

    test('unsaved definitions run once; results stream over SSE and stay readable', async () => {
      const run = await t.call({
        method: 'POST',
        url: '/v1/test-sessions/run',
        payload: {
          name: 'ci',
          checkRunJobs: [
            { logicalId: 'up', checkType: 'API', name: 'Up', request: { url: `${base}/ok`, assertions: ok } },
            { logicalId: 'down', checkType: 'URL', name: 'Down', request: { url: `${base}/fail` } },
          ],
        },
      })
      assert.equal(run.statusCode, 201, run.body)
      const session = json(run)
      assert.equal(session.status, 'RUNNING')
      assert.deepEqual(Object.keys(session.sequenceIds).sort(), ['down', 'up'])

      const events = await t.app.inject({
        method: 'GET',
        url: `/v1/test-sessions/${session.testSessionId}/events`,
        headers: { authorization: `Bearer ${t.owner.key}` },
      })
      const frames = [...events.body.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => [
        m[1],
        JSON.parse(m[2] as string),
      ])
      assert.deepEqual(
        frames.map(([event]) => event),
        ['result', 'result', 'complete'],
      )
      const complete = frames[2]?.[1]
      assert.equal(complete.status, 'FAILED')
      const byName = Object.fromEntries(complete.results.map((r: any) => [r.name, r]))
      assert.equal(byName.Up.status, 'PASSED')
      assert.equal(byName.Down.status, 'FAILED')
      assert.equal(byName.Up.checkId, null)

      const result = await t.call({ method: 'GET', url: new URL(byName.Up.testSessionResultLink).pathname })
      assert.equal(result.statusCode, 200, result.body)
      assert.equal(json(result).apiCheckResult.response.status, 200)
      assert.equal(json(result).id, byName.Up.testSessionResultId)

      const completion = await t.call({
        method: 'GET',
        url: `/v1/test-sessions/${session.testSessionId}/completion?maxWaitSeconds=1`,
      })
      assert.equal(completion.statusCode, 200)
      assert.equal(json(completion).status, 'FAILED')
      const listed = json(await t.call({ method: 'GET', url: '/v1/test-sessions?statuses=FAILED' }))
      const entry = listed.entries.find((e: any) => e.id === session.testSessionId)
      // The hosted list entry: its results' ids by status, where it ran, what started it.
      assert.deepEqual(
        {
          accountId: entry.accountId,
          name: entry.name,
          provider: entry.provider,
          status: entry.status,
          region: entry.region,
          passed: entry.passed,
          failed: entry.failed,
          running: entry.running,
          cancelled: entry.cancelled,
          branchName: entry.branchName,
          created_at: entry.created_at,
        },
        {
          accountId: t.owner.accountId,
          name: 'ci',
          provider: 'API',
          status: 'FAILED',
          region: 'local',
          passed: [byName.Up.testSessionResultId],
          failed: [byName.Down.testSessionResultId],
          running: [],
          cancelled: [],
          branchName: null,
          created_at: session.startedAt,
        },
      )
      assert.equal(entry.testSessionId, session.testSessionId)
      const triggered = json(await t.call({ method: 'GET', url: '/v1/test-sessions?providers=TRIGGER' }))
      assert.ok(
        triggered.entries.every((e: any) => e.provider === 'TRIGGER'),
        'providers filters by what started a session',
      )
      assert.ok(!triggered.entries.some((e: any) => e.id === session.testSessionId))

      const stranger = await ownerOfAnotherAccount(t)
      const hidden = await t.call({
        method: 'GET',
        url: `/v1/test-sessions/${session.testSessionId}`,
        as: stranger,
      })
      assert.equal(hidden.statusCode, 404)
    })

    test('bad definitions and locations are a 400', async () => {
      const badType = await t.call({
        method: 'POST',
        url: '/v1/test-sessions/run',
        payload: { checkRunJobs: [{ checkType: 'NOPE', name: 'x' }] },
      })
      assert.equal(badType.statusCode, 400)
      assert.match(json(badType).message, /checkRunJobs\[0\]\.checkType/)
      const badLocation = await t.call({
        method: 'POST',
        url: '/v1/test-sessions/run',
        payload: {
          runLocation: 'mars-1',
          checkRunJobs: [{ checkType: 'URL', name: 'x', request: { url: base } }],
        },
      })
      assert.equal(badLocation.statusCode, 400)
      assert.match(json(badLocation).message, /runLocation/)
    })

    test('check sessions run saved checks by tag, store their results and answer completion', async () => {
      const up = await createApiCheck('Tagged up', '/ok', ['ci', 'fast'])
      await createApiCheck('Tagged down', '/fail', ['ci'])
      await createApiCheck('Untagged', '/ok', [])
      const none = await t.call({
        method: 'POST',
        url: '/v1/check-sessions/trigger',
        payload: { target: { matchTags: [['nothing-has-this']] } },
      })
      assert.equal(none.statusCode, 404)
      const triggered = await t.call({
        method: 'POST',
        url: '/v1/check-sessions/trigger',
        payload: { target: { matchTags: [['ci', '!slow']] } },
      })
      assert.equal(triggered.statusCode, 201, triggered.body)
      const sessions = json(triggered).sessions
      assert.deepEqual(sessions.map((s: any) => s.name).sort(), ['Tagged down', 'Tagged up'])
      const statuses: Record<string, string> = {}
      for (const session of sessions) {
        let done: any
        for (;;) {
          const answer = await t.call({
            method: 'GET',
            url: `/v1/check-sessions/${session.checkSessionId}/completion?maxWaitSeconds=5`,
          })
          if (answer.statusCode === 408) continue
          assert.equal(answer.statusCode, 200, answer.body)
          done = json(answer)
          break
        }
        statuses[done.name] = done.status
        if (done.checkId === up) {
          const [only] = done.results
          const stored = await t.call({ method: 'GET', url: `/v1/check-results/${up}/${only.checkResultId}` })
          assert.equal(stored.statusCode, 200, stored.body)
          assert.equal(json(stored).hasFailures, false)
        }
      }
      assert.deepEqual(statuses, { 'Tagged up': 'PASSED', 'Tagged down': 'FAILED' })
    })

    test('/v2/check-sessions trigger by check id, read and await the same sessions as /v1', async () => {
      const checkId = await createApiCheck('V2 session', '/ok', [])
      const triggered = await t.call({
        method: 'POST',
        url: '/v2/check-sessions/trigger',
        payload: { target: { checkId: [checkId] } },
      })
      assert.equal(triggered.statusCode, 201, triggered.body)
      const [session] = json(triggered).sessions
      assert.equal(session.checkId, checkId)
      assert.deepEqual(session.runLocations, ['local'])
      assert.equal(session.runSource, 'TRIGGER_API')
      let done: any
      for (;;) {
        const answer = await t.call({
          method: 'GET',
          url: `/v2/check-sessions/${session.checkSessionId}/completion?maxWaitSeconds=5`,
        })
        if (answer.statusCode === 408) continue
        assert.equal(answer.statusCode, 200, answer.body)
        done = json(answer)
        break
      }
      assert.equal(done.status, 'PASSED')
      assert.equal(done.results.length, 1)
      const read = json(await t.call({ method: 'GET', url: `/v2/check-sessions/${session.checkSessionId}` }))
      assert.deepEqual(read, done)
      const v1 = json(await t.call({ method: 'GET', url: `/v1/check-sessions/${session.checkSessionId}` }))
      assert.deepEqual(v1, done)
      const unknown = await t.call({ method: 'GET', url: `/v2/check-sessions/${crypto.randomUUID()}` })
      assert.equal(unknown.statusCode, 404)
      const bad = await t.call({ method: 'GET', url: '/v2/check-sessions/not-a-uuid' })
      assert.equal(bad.statusCode, 400)
    })

    test('a triggered test session runs its checks with its environmentVariables over their own', async () => {
      // The check's own ENVIRONMENT_URL and the account's point where nothing listens; the session's wins.
      const nowhere = 'http://127.0.0.1:9'
      const account = await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'ENVIRONMENT_URL', value: nowhere },
      })
      assert.equal(account.statusCode, 201, account.body)
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: {
          name: 'Per environment',
          activated: false,
          tags: ['per-env'],
          locations: ['local'],
          environmentVariables: [{ key: 'ENVIRONMENT_URL', value: nowhere }],
          request: { url: '{{ENVIRONMENT_URL}}/ok', assertions: ok },
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const checkId = json(created).id
      const trigger = async (environmentVariables?: unknown[]) => {
        const answer = await t.call({
          method: 'POST',
          url: '/v1/test-sessions/trigger',
          payload: {
            name: 'Per environment',
            runLocation: 'local',
            target: { matchTags: [['per-env']], allowDeactivated: true },
            ...(environmentVariables ? { environmentVariables } : {}),
          },
        })
        if (answer.statusCode !== 201) return answer
        const { testSessionId } = json(answer)
        for (;;) {
          const done = await t.call({
            method: 'GET',
            url: `/v1/test-sessions/${testSessionId}/completion?maxWaitSeconds=5`,
          })
          if (done.statusCode !== 408) return done
        }
      }
      assert.equal(json(await trigger()).status, 'FAILED', 'without variables, the check’s own apply')
      const given = json(await trigger([{ key: 'ENVIRONMENT_URL', value: base }]))
      assert.equal(given.status, 'PASSED')
      const [result] = given.results
      const stored = json(
        await t.call({ method: 'GET', url: `/v1/check-results/${checkId}/${result.testSessionResultId}` }),
      )
      assert.equal(stored.apiCheckResult.request.url, `${base}/ok`)
      // Kept sealed at rest, as a CI job's values are often secrets.
      const rows = await t.ctx.db
        .selectFrom('run_sessions')
        .select('environment_variables')
        .where('id', '=', given.testSessionId)
        .execute()
      assert.equal(rows.length, 1)
      assert.ok(!String(rows[0]!.environment_variables).includes(base))
      assert.deepEqual(
        JSON.parse(String(rows[0]!.environment_variables)).map((v: any) => [v.key, v.value]),
        [['ENVIRONMENT_URL', null]],
      )
      const secret = json(await trigger([{ key: 'ENVIRONMENT_URL', value: base, secret: true }]))
      assert.equal(secret.status, 'PASSED')
      const hidden = json(
        await t.call({
          method: 'GET',
          url: `/v1/check-results/${checkId}/${secret.results[0].testSessionResultId}`,
        }),
      )
      assert.ok(!JSON.stringify(hidden).includes(base), 'a secret value is scrubbed from the result')
      const badKey = await trigger([{ key: 'NOT A KEY', value: base }])
      assert.equal(badKey.statusCode, 400)
      assert.match(json(badKey).message, /body\.environmentVariables\.0\.key/)
    })

    test('check sessions take environmentVariables too, except for checks in private locations', async () => {
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: {
          name: 'Per environment, by check session',
          activated: false,
          tags: ['per-env-cs'],
          locations: ['local'],
          environmentVariables: [{ key: 'ENVIRONMENT_URL', value: 'http://127.0.0.1:9' }],
          request: { url: '{{ENVIRONMENT_URL}}/ok', assertions: ok },
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const triggered = await t.call({
        method: 'POST',
        url: '/v1/check-sessions/trigger',
        payload: {
          target: { matchTags: [['per-env-cs']] },
          environmentVariables: [{ key: 'ENVIRONMENT_URL', value: base }],
        },
      })
      assert.equal(triggered.statusCode, 201, triggered.body)
      const [session] = json(triggered).sessions
      let done: any
      for (;;) {
        const answer = await t.call({
          method: 'GET',
          url: `/v1/check-sessions/${session.checkSessionId}/completion?maxWaitSeconds=5`,
        })
        if (answer.statusCode === 408) continue
        done = json(answer)
        break
      }
      assert.equal(done.status, 'PASSED')

      const location = await t.call({
        method: 'POST',
        url: '/v1/private-locations',
        payload: { name: 'Rack', slugName: 'rack-per-env' },
      })
      assert.equal(location.statusCode, 201, location.body)
      const onAgent = await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: {
          name: 'On an agent',
          activated: false,
          tags: ['per-env-agent'],
          privateLocations: ['rack-per-env'],
          request: { url: `${base}/ok`, assertions: ok },
        },
      })
      assert.equal(onAgent.statusCode, 201, onAgent.body)
      const refused = await t.call({
        method: 'POST',
        url: '/v1/check-sessions/trigger',
        payload: {
          target: { matchTags: [['per-env-agent']] },
          environmentVariables: [{ key: 'ENVIRONMENT_URL', value: base }],
        },
      })
      assert.equal(refused.statusCode, 400, refused.body)
      assert.match(
        json(refused).message,
        /^body\.environmentVariables: check On an agent runs in a private location/,
      )
    })

    test('trigger URLs: create, read, run with the token or a key, refuse a wrong token, delete', async () => {
      const checkId = await createApiCheck('By URL', '/ok', [])
      const missing = await t.call({ method: 'GET', url: `/v1/triggers/checks/${checkId}` })
      assert.equal(missing.statusCode, 404)
      const created = await t.call({ method: 'POST', url: `/v1/triggers/checks/${checkId}` })
      assert.equal(created.statusCode, 201, created.body)
      const trigger = json(created)
      assert.equal(trigger.checkId, checkId)
      assert.match(trigger.token, /^[\w-]{12}$/)
      const again = await t.call({ method: 'POST', url: `/v1/triggers/checks/${checkId}` })
      assert.equal(json(again).token, trigger.token)

      const run = await t.app.inject({
        method: 'GET',
        url: `/v1/triggers/checks/${checkId}/run?token=${trigger.token}`,
      })
      assert.equal(run.statusCode, 201, run.body)
      assert.equal(json(run).sessions[0].checkId, checkId)
      const read = json(await t.call({ method: 'GET', url: `/v1/triggers/checks/${checkId}` }))
      assert.ok(read.called_at)
      const wrong = await t.app.inject({
        method: 'POST',
        url: `/v1/triggers/checks/${checkId}/run?token=nope`,
      })
      assert.equal(wrong.statusCode, 401)
      const keyed = await t.call({ method: 'POST', url: `/v1/triggers/checks/${checkId}/run` })
      assert.equal(keyed.statusCode, 201, keyed.body)
      const bare = await t.app.inject({ method: 'POST', url: `/v1/triggers/checks/${checkId}/run` })
      assert.equal(bare.statusCode, 401)

      const deleted = await t.call({ method: 'DELETE', url: `/v1/triggers/checks/${checkId}` })
      assert.equal(deleted.statusCode, 204)
      const gone = await t.app.inject({
        method: 'GET',
        url: `/v1/triggers/checks/${checkId}/run?token=${trigger.token}`,
      })
      assert.equal(gone.statusCode, 401)
    })

    test('group trigger URLs run every check of the group', async () => {
      const group = await t.call({
        method: 'POST',
        url: '/v1/check-groups',
        payload: { name: 'CI group', locations: ['local'], concurrency: 2 },
      })
      assert.equal(group.statusCode, 201, group.body)
      const groupId = json(group).id
      const checkId = await createApiCheck('In group', '/ok', [])
      const moved = await t.call({ method: 'PUT', url: `/v1/checks/${checkId}`, payload: { groupId } })
      assert.equal(moved.statusCode, 200, moved.body)
      const created = json(await t.call({ method: 'POST', url: `/v1/triggers/check-groups/${groupId}` }))
      assert.equal(created.groupId, groupId)
      const run = await t.app.inject({
        method: 'POST',
        url: `/v1/triggers/check-groups/${groupId}/run?token=${created.token}`,
      })
      assert.equal(run.statusCode, 201, run.body)
      assert.deepEqual(
        json(run).sessions.map((s: any) => s.checkId),
        [checkId],
      )
    })
  })
}
