import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { jobResultBody } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { runJob } from '@svc/runner'
import { listenOnLoopback } from '@svc/runner/testing'
import { listSchedule } from '../../runs/schedules.repo.ts'
import { asAgent } from '../../testing/agent-locations.ts'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`private locations and the agent protocol on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-23T08:00:00.000Z')
    let base = ''
    const target = createServer((request, response) => {
      response.statusCode = request.url === '/down' ? 500 : 200
      response.end(`seen ${request.headers.authorization ?? ''}`)
    })
    before(async () => {
      base = (await listenOnLoopback(target)).url
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      target.close()
      await t.close()
    })
    const agentId = randomUUID()

    const locationWithKey = async (name: string, slugName: string) => {
      const location = json(
        await t.call({ method: 'POST', url: '/v1/private-locations', payload: { name, slugName } }),
      )
      const { rawKey } = json(
        await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }),
      )
      return { location, rawKey: rawKey as string }
    }

    test('locations: CRUD, unique slugs, keys shown once and revocable, checks may name them', async () => {
      const created = await t.call({
        method: 'POST',
        url: '/v1/private-locations',
        payload: { name: 'Office', slugName: 'office', icon: 'home' },
      })
      assert.equal(created.statusCode, 201, created.body)
      const location = json(created)
      assert.deepEqual(
        { ...location, id: undefined, created_at: undefined, updated_at: undefined },
        {
          id: undefined,
          name: 'Office',
          slugName: 'office',
          icon: 'home',
          proxyUrl: null,
          keys: [],
          agents: [],
          healthy: false,
          lastSeenAt: null,
          created_at: undefined,
          updated_at: undefined,
        },
      )
      const duplicate = await t.call({
        method: 'POST',
        url: '/v1/private-locations',
        payload: { name: 'Again', slugName: 'office' },
      })
      assert.equal(duplicate.statusCode, 409)
      const badSlug = await t.call({
        method: 'POST',
        url: '/v1/private-locations',
        payload: { name: 'x', slugName: 'Not A Slug' },
      })
      assert.equal(badSlug.statusCode, 400)

      const keyResponse = await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` })
      assert.equal(keyResponse.statusCode, 201)
      const key = json(keyResponse)
      assert.match(key.rawKey, /^svc_pl_[A-Za-z0-9_-]{43}$/)
      assert.equal(key.maskedKey, `svc_pl_********${key.rawKey.slice(-4)}`)
      const listed = json(await t.call({ method: 'GET', url: `/v1/private-locations/${location.id}` }))
      assert.deepEqual(
        listed.keys.map((k: any) => k.id),
        [key.id],
      )
      // Reads carry the masked form in rawKey (the hosted read schema requires it): the full key only once.
      assert.equal(listed.keys[0].rawKey, key.maskedKey, 'the full key is shown only once')
      const [inList] = json(await t.call({ method: 'GET', url: '/v1/private-locations' })).filter(
        (l: any) => l.id === location.id,
      )
      assert.deepEqual(
        inList.keys.map((k: any) => [k.rawKey, k.maskedKey]),
        [[key.maskedKey, key.maskedKey]],
      )

      const unknown = await t.call({
        method: 'POST',
        url: '/v1/checks/url',
        payload: { name: 'x', privateLocations: ['nowhere'], request: { url: base } },
      })
      assert.equal(unknown.statusCode, 400)
      assert.match(json(unknown).message, /unknown private location nowhere/)
      const readOnly = await t.addUser('READ_WRITE')
      assert.equal(
        (await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys`, as: readOnly }))
          .statusCode,
        403,
        'keys need ADMIN',
      )
    })

    test('a location without an icon has the hosted default `location`; an update that leaves it out keeps it', async () => {
      const plain = await t.call({
        method: 'POST',
        url: '/v1/private-locations',
        payload: { name: 'Plain', slugName: 'plain-icon' },
      })
      assert.equal(plain.statusCode, 201, plain.body)
      assert.equal(json(plain).icon, 'location')
      const url = `/v1/private-locations/${json(plain).id}`
      const put = async (payload: object) => {
        const res = await t.call({ method: 'PUT', url, payload })
        assert.equal(res.statusCode, 200, res.body)
        return json(await t.call({ method: 'GET', url })).icon
      }
      assert.equal(await put({ name: 'Plain', icon: 'home' }), 'home')
      assert.equal(await put({ name: 'Renamed' }), 'home', 'left out, the icon is kept')
      assert.equal(await put({ name: 'Renamed', icon: null }), 'location', 'null is the default again')
    })

    test('an agent takes its location’s due runs, posts outcomes stored like any result; revoked keys are refused', async () => {
      const { location, rawKey } = await locationWithKey('Lab', 'lab')
      await t.call({
        method: 'POST',
        url: '/v1/variables',
        payload: { key: 'SVC_SECRET_TOKEN', value: 'very-secret-token' },
      })
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/api',
          payload: {
            name: 'inside',
            locations: [],
            privateLocations: ['lab'],
            doubleCheck: false,
            request: { url: `${base}/`, headers: [{ key: 'Authorization', value: '{{SVC_SECRET_TOKEN}}' }] },
          },
        }),
      )
      const [slot] = await listSchedule(t.ctx, check.id)
      assert.equal(slot?.location, `private:${location.id}`)
      assert.deepEqual(check.warnings, [
        'Private location lab has no connected agent: its runs wait until one connects',
      ])
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/private-locations/${location.id}` })).statusCode,
        409,
      )

      assert.equal(
        (await asAgent(t, 'svc_pl_wrong', agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0' }))
          .statusCode,
        401,
      )
      const beat = await asAgent(t, rawKey, agentId, {
        method: 'POST',
        url: '/agent/v1/heartbeat',
        payload: { version: '1.0.0', hostname: 'lab-1', runningJobs: 0 },
      })
      assert.equal(beat.statusCode, 200)
      const seen = json(await t.call({ method: 'GET', url: `/v1/private-locations/${location.id}` }))
      assert.equal(seen.healthy, true)
      assert.deepEqual(json(await t.call({ method: 'GET', url: `/v1/checks/${check.id}` })).warnings, [])
      assert.equal(seen.agents[0].hostname, 'lab-1')
      assert.equal(seen.lastSeenAt, new Date(nowMs).toISOString())

      // A goodbye takes the agent off the list, but the location still tells when one was last seen.
      nowMs += 5_000
      assert.equal(
        (await asAgent(t, rawKey, agentId, { method: 'DELETE', url: '/agent/v1/heartbeat' })).statusCode,
        204,
      )
      const left = json(await t.call({ method: 'GET', url: `/v1/private-locations/${location.id}` }))
      assert.deepEqual([left.healthy, left.agents], [false, []])
      assert.equal(left.lastSeenAt, new Date(nowMs).toISOString(), 'seen until its goodbye')
      assert.equal(
        (
          await asAgent(t, rawKey, agentId, {
            method: 'POST',
            url: '/agent/v1/heartbeat',
            payload: { version: '1.0.0', hostname: 'lab-1', runningJobs: 0 },
          })
        ).statusCode,
        200,
      )

      // Just before its slot (which may lie within the 5 s the goodbye moved the clock on: its offset is random).
      nowMs = Number(slot?.next_due_ms) - 1
      assert.deepEqual(
        json(await asAgent(t, rawKey, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0' })),
        [],
      )
      nowMs = Number(slot?.next_due_ms)
      const [job] = json(
        await asAgent(t, rawKey, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0' }),
      )
      assert.equal(job.checkId, check.id)
      assert.equal(job.location, `private:${location.id}`)
      assert.deepEqual(job.hidden, ['very-secret-token'])
      assert.equal(
        job.job.definition.request.headers[0].value,
        'very-secret-token',
        'the agent gets what it runs',
      )
      assert.deepEqual(
        json(await asAgent(t, rawKey, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0' })),
        [],
        'leased once',
      )

      const outcome = await runJob(job.job, { now: () => new Date(nowMs) })
      const post = () =>
        asAgent(t, rawKey, agentId, {
          method: 'POST',
          url: '/agent/v1/results',
          payload: jobResultBody(job, outcome),
        })
      assert.equal((await post()).statusCode, 204)
      assert.equal((await post()).statusCode, 204, 'posting twice is harmless')
      const results = await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` })
      const stored = json(results)
      assert.equal(stored.length, 1, 'stored once')
      assert.equal(stored[0].runLocation, 'lab')
      assert.equal(stored[0].apiCheckResult.response.status, 200)
      assert.ok(!results.body.includes('very-secret-token'), 'scrubbed on arrival too')
      const [moved] = await listSchedule(t.ctx, check.id)
      assert.ok(Number(moved?.next_due_ms) > nowMs, 'the slot moved on')

      const keys = json(await t.call({ method: 'GET', url: `/v1/private-locations/${location.id}` })).keys
      await t.call({ method: 'DELETE', url: `/v1/private-locations/${location.id}/keys/${keys[0].id}` })
      assert.equal(
        (await asAgent(t, rawKey, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0' }))
          .statusCode,
        401,
      )
    })

    test('several outcomes in one post: each stored once, each refusal answered on its own', async () => {
      const { rawKey } = await locationWithKey('Rack', 'rack')
      const checks = []
      for (const name of ['first', 'deleted', 'third']) {
        const created = await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: {
            name,
            locations: [],
            privateLocations: ['rack'],
            doubleCheck: false,
            request: { url: `${base}/${name}` },
          },
        })
        checks.push(json(created))
      }
      const slots = await Promise.all(checks.map(async (check) => (await listSchedule(t.ctx, check.id))[0]))
      nowMs = Math.max(...slots.map((slot) => Number(slot?.next_due_ms)))
      const jobs = json(
        await asAgent(t, rawKey, agentId, { method: 'GET', url: '/agent/v1/jobs?waitSeconds=0&max=10' }),
      )
      const jobOf = (check: { id: string }) => jobs.find((job: any) => job.checkId === check.id)
      assert.deepEqual(jobs.map((job: any) => job.checkId).sort(), checks.map((check) => check.id).sort())
      await t.call({ method: 'DELETE', url: `/v1/checks/${checks[1].id}` })

      const bodyOf = async (job: any, changes: Record<string, unknown> = {}) => ({
        ...jobResultBody(job, await runJob(job.job, { now: () => new Date(nowMs) })),
        ...changes,
      })
      const [first, deleted, third] = checks.map(jobOf)
      const results = [
        await bodyOf(first),
        await bodyOf(deleted),
        await bodyOf(third),
        await bodyOf(first, {
          location: 'private:00000000-0000-4000-8000-000000000000',
          resultId: randomUUID(),
        }),
      ]
      const post = (payload: object) =>
        asAgent(t, rawKey, agentId, { method: 'POST', url: '/agent/v1/results/batch', payload })
      const expected = {
        results: [
          { resultId: first.resultId, statusCode: 204 },
          { resultId: deleted.resultId, statusCode: 404, message: `Check ${deleted.checkId} not found` },
          { resultId: third.resultId, statusCode: 204 },
          {
            resultId: results[3]?.resultId,
            statusCode: 404,
            message: `Job ${first.slotKey} is not one of this location's`,
          },
        ],
      }
      const answer = await post({ results })
      assert.equal(answer.statusCode, 200, answer.body)
      assert.deepEqual(json(answer), expected)
      assert.deepEqual(json(await post({ results })), expected, 'posting again is harmless')
      for (const check of [checks[0], checks[2]]) {
        const stored = json(await t.call({ method: 'GET', url: `/v1/check-results/${check.id}` }))
        assert.deepEqual(
          stored.map((result: any) => [result.id, result.runLocation, result.urlCheckResult.response.status]),
          [[jobOf(check).resultId, 'rack', 200]],
          'stored once, as a single post stores it',
        )
        const [moved] = await listSchedule(t.ctx, check.id)
        assert.ok(Number(moved?.next_due_ms) > nowMs, 'its slot moved on')
      }

      const empty = await post({ results: [] })
      assert.equal(empty.statusCode, 400)
      assert.match(json(empty).message, /results/)
      const tooMany = await post({ results: Array.from({ length: 101 }, () => results[0]) })
      assert.equal(tooMany.statusCode, 400)
      assert.equal((await post({ results: [{ ...results[0], extra: 1 }] })).statusCode, 400)
      assert.equal(
        (
          await asAgent(t, 'svc_pl_wrong', agentId, {
            method: 'POST',
            url: '/agent/v1/results/batch',
            payload: { results },
          })
        ).statusCode,
        401,
      )
    })

    test('a key created while its location is deleted: 404, no key left behind', async () => {
      const location = json(
        await t.call({
          method: 'POST',
          url: '/v1/private-locations',
          payload: { name: 'going', slugName: 'going' },
        }),
      )
      // The deletion has locked the location and waits where it deletes what names it; then the key.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('agent_events'), [
        () => t.call({ method: 'DELETE', url: `/v1/private-locations/${location.id}` }),
        () => t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }),
      ])
      assert.deepEqual(
        answers.map((res) => [res.statusCode, res.body && json(res).message]),
        [
          [204, ''],
          [404, `Private location ${location.id} not found`],
        ],
      )
      const keys = await t.store.db
        .selectFrom('private_location_keys')
        .select('id')
        .where('private_location_id', '=', location.id)
        .execute()
      assert.deepEqual(keys, [])
    })

    test('a proxyUrl agents could not use is refused with 400; its password reads ***masked***', async () => {
      const ok = await t.call({
        method: 'POST',
        url: '/v1/private-locations',
        payload: { name: 'Proxied', slugName: 'proxied', proxyUrl: 'http://user:pw@proxy.internal:3128' },
      })
      assert.equal(ok.statusCode, 201, ok.body)
      for (const proxyUrl of [
        'http://',
        'http://exa mple:3128',
        'http://[::1',
        'https://proxy:99999',
        'ftp://proxy.internal:3128',
        'proxy.internal:3128',
        5,
      ]) {
        for (const [method, url] of [
          ['POST', '/v1/private-locations'],
          ['PUT', `/v1/private-locations/${json(ok).id}`],
        ] as const) {
          const answer = await t.call({
            method,
            url,
            payload: { name: 'Proxied', slugName: 'proxied-2', proxyUrl },
          })
          assert.equal(answer.statusCode, 400, `${method} ${proxyUrl}: ${answer.body}`)
          assert.deepEqual(
            json(answer).attributes.errors.map((e: { path: string }) => e.path),
            ['body.proxyUrl'],
          )
        }
      }
      // One issue, not one per branch of "a URL or null" (must be null, must match a schema in anyOf).
      const icon = await t.call({
        method: 'POST',
        url: '/v1/private-locations',
        payload: { name: 'Iconic', slugName: 'iconic', icon: 5 },
      })
      assert.deepEqual(json(icon).attributes.errors, [{ path: 'body.icon', message: 'must be string' }])
      const kept = json(await t.call({ method: 'GET', url: `/v1/private-locations/${json(ok).id}` }))
      assert.equal(kept.proxyUrl, 'http://user:***masked***@proxy.internal:3128', 'the password is not shown')
      assert.equal(json(ok).proxyUrl, kept.proxyUrl)
      const storedProxy = async () =>
        (
          await t.ctx.db
            .selectFrom('private_locations')
            .select('proxy_url')
            .where('id', '=', json(ok).id)
            .executeTakeFirstOrThrow()
        ).proxy_url
      const put = (proxyUrl: string) =>
        t.call({
          method: 'PUT',
          url: `/v1/private-locations/${json(ok).id}`,
          payload: { name: 'Proxied', slugName: 'proxied', proxyUrl },
        })
      assert.equal((await put(kept.proxyUrl)).statusCode, 200)
      assert.equal(await storedProxy(), 'http://user:pw@proxy.internal:3128', 'sent back masked, it is kept')
      assert.equal((await put('http://user:new-pw@proxy.internal:3128')).statusCode, 200)
      assert.equal(await storedProxy(), 'http://user:new-pw@proxy.internal:3128')
      // Only name is required (as the hosted API's update): the rest keeps its values.
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/private-locations/${json(ok).id}`,
        payload: { name: 'Renamed' },
      })
      assert.equal(renamed.statusCode, 200, renamed.body)
      assert.deepEqual([json(renamed).name, json(renamed).slugName], ['Renamed', 'proxied'])
      assert.equal(await storedProxy(), 'http://user:new-pw@proxy.internal:3128')
    })

    test('the agent routes check the key before they read or validate a body', async () => {
      const { rawKey } = await locationWithKey('Gate', 'gate')
      const calls = [
        { method: 'POST', url: '/agent/v1/results/batch', payload: { results: [] } },
        { method: 'POST', url: '/agent/v1/results', payload: { slotKey: 'x' } },
        { method: 'POST', url: '/agent/v1/errors', payload: {} },
        { method: 'POST', url: '/agent/v1/heartbeat', payload: {} },
        {
          method: 'PUT',
          url: `/agent/v1/checks/${randomUUID()}/results/${randomUUID()}/artifacts/a.png`,
          headers: { 'content-type': 'application/octet-stream' },
          payload: Buffer.alloc(1024),
        },
      ]
      for (const call of calls) {
        for (const authorization of [undefined, 'Bearer svc_pl_not-a-key']) {
          const answer = await t.app.inject({
            ...call,
            headers: { ...call.headers, ...(authorization ? { authorization } : {}) },
          } as any)
          assert.equal(answer.statusCode, 401, `${call.method} ${call.url} ${authorization}: ${answer.body}`)
          assert.deepEqual(Object.keys(json(answer)).sort(), ['attributes', 'error', 'message', 'statusCode'])
        }
      }
      const known = await asAgent(t, rawKey, agentId, {
        method: 'POST',
        url: '/agent/v1/results/batch',
        payload: {},
      })
      assert.equal(known.statusCode, 400, 'a known key gets the validation error')
      const noAgentId = await t.app.inject({
        method: 'GET',
        url: '/agent/v1/jobs?waitSeconds=0',
        headers: { authorization: `Bearer ${rawKey}` },
      })
      assert.equal(noAgentId.statusCode, 400)
      assert.equal(json(noAgentId).message, 'headers.x-svc-agent-id is required')
      // The scheme is case-insensitive and spacing is lenient, as for API keys.
      for (const authorization of [`bearer ${rawKey}`, `BEARER  ${rawKey} `]) {
        const polled = await t.app.inject({
          method: 'GET',
          url: '/agent/v1/jobs?waitSeconds=0',
          headers: { authorization, 'x-svc-agent-id': randomUUID() },
        })
        assert.equal(polled.statusCode, 200, `${authorization}: ${polled.body}`)
      }
    })

    test('error events carry only their fields; static addresses are plain text, 60 per key, then a JSON 429', async () => {
      const { rawKey } = await locationWithKey('Edge', 'edge')
      const event = {
        message: 'boom',
        stack: 'Error: boom',
        agentVersion: '1.0.0',
        platform: 'linux',
        runtimeVersion: 'v24.9.0',
      }
      assert.equal(
        (await asAgent(t, rawKey, agentId, { method: 'POST', url: '/agent/v1/errors', payload: event }))
          .statusCode,
        202,
      )
      const extra = await asAgent(t, rawKey, agentId, {
        method: 'POST',
        url: '/agent/v1/errors',
        payload: { ...event, url: 'https://internal/' },
      })
      assert.equal(extra.statusCode, 400, 'nothing beyond the listed fields is accepted')
      const ips = await t.call({ method: 'GET', url: '/v1/static-ips.txt' })
      assert.equal(ips.statusCode, 200)
      assert.match(ips.headers['content-type'] as string, /^text\/plain/)
      assert.equal(ips.body, '')
      assert.equal(ips.headers['x-ratelimit-limit'], '60')
      // The two lists share the route limit: 60 per key, then a 429 that is JSON, not text.
      const reader = await t.addUser('READ_ONLY')
      const statuses: number[] = []
      for (let i = 0; i < 60; i++) {
        const path = i % 2 ? '/v1/static-ips.txt' : '/v1/static-ipv6s.txt'
        statuses.push((await t.call({ method: 'GET', url: path, as: reader })).statusCode)
      }
      assert.deepEqual(statuses, Array(60).fill(200))
      const limited = await t.call({ method: 'GET', url: '/v1/static-ipv6s.txt', as: reader })
      assert.equal(limited.statusCode, 429)
      assert.match(limited.headers['content-type'] as string, /^application\/json/)
      assert.deepEqual(json(limited), {
        statusCode: 429,
        error: 'Too Many Requests',
        message: 'Rate limit exceeded: 60 requests per 60 seconds',
        attributes: { limit: 60, windowSeconds: 60, retryAfterSeconds: 60 },
      })
    })
  })
}
