import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { after, before, describe, test } from 'node:test'
import type { CheckResultsTable } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import {
  createTestApp,
  json,
  ownerOfAnotherAccount,
  type Tenant,
  type TestApp,
} from '../../testing/test-app.ts'
import { storeSeedResult } from '../analytics/testing.ts'
import { deleteGroupsBefore } from '../error-groups/error-groups.repo.ts'
import { failingPhase } from './evidence.ts'
import { claimNext } from './root-cause-analyses.repo.ts'
import { createRootCauseWorker } from './worker.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const iso = (ms: number) => new Date(ms).toISOString()

/** An OpenAI-compatible chat endpoint on loopback: records requests, answers `reply` or `status`. */
async function fakeModel() {
  const requests: { url: string; headers: IncomingHttpHeaders; body: any }[] = []
  const state = { status: 200 }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      requests.push({
        url: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString()),
      })
      response.statusCode = state.status
      response.setHeader('content-type', 'application/json')
      if (state.status !== 200) return response.end('{"error":{"message":"overloaded"}}')
      response.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          model: 'fake-model-1',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: ' DNS for api.shop.test fails in eu-west-1 since 10:00. ',
              },
              finish_reason: 'stop',
            },
          ],
        }),
      )
    })
  })
  const { url } = await listenOnLoopback(server)
  return {
    url: `${url}/v1`,
    requests,
    state,
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}

test('the failing phase is named from the error and the sample result', () => {
  const cases: [string, string | null, string, string, string | null][] = [
    [
      'URL',
      'NETWORK_ERROR',
      'DNS lookup failed: getaddrinfo ENOTFOUND api.shop.test',
      'DNS',
      'api.shop.test',
    ],
    ['API', 'NETWORK_ERROR', 'Connection refused: connect ECONNREFUSED 10.0.0.1:443', 'TCP', 'ECONNREFUSED'],
    ['API', 'NETWORK_ERROR', 'TLS error (CERT_HAS_EXPIRED): certificate has expired', 'TLS', null],
    ['URL', 'ASSERTION', 'Status code 503 is not below 400', 'HTTP_STATUS', '503'],
    ['URL', 'ASSERTION', 'Status code 504 is not below 400 (Gateway Timeout)', 'HTTP_STATUS', '504'],
    ['API', 'ASSERTION', 'Assertion failed: STATUS_CODE EQUALS "200", got 404', 'HTTP_STATUS', '404'],
    ['API', 'ASSERTION', 'Assertion failed: JSON_BODY $.ok EQUALS "true", got false', 'ASSERTION', null],
    ['API', 'TIMEOUT', 'The request timed out', 'TIMEOUT', null],
    ['ICMP', 'ASSERTION', 'Packet loss 40% is over 10%', 'PACKET_LOSS', null],
    ['HEARTBEAT', 'TIMEOUT', 'No ping within period and grace', 'HEARTBEAT', null],
  ]
  for (const [checkType, type, message, phase, detail] of cases) {
    const found = failingPhase(checkType, type, message)
    assert.equal(found.phase, phase, message)
    if (detail !== null) assert.equal(found.detail, detail, message)
  }
  const browser = {
    detail: JSON.stringify({
      browserCheckResult: {
        tests: [
          {
            failed: true,
            steps: [
              { status: 'passed', location: 'tests/buy.spec.ts:5:3', steps: [] },
              {
                status: 'failed',
                location: 'tests/buy.spec.ts:12:3',
                steps: [{ status: 'failed', location: 'tests/buy.spec.ts:14:7', steps: [] }],
              },
            ],
          },
        ],
      },
    }),
  } as CheckResultsTable
  assert.deepEqual(
    failingPhase('BROWSER', 'SCRIPT', 'buy: Error: expect(locator).toBeVisible() failed', browser),
    {
      phase: 'SCRIPT',
      detail: 'tests/buy.spec.ts:14',
    },
  )
})

test("a result's malformed detail (from a buggy or hostile agent) is skipped, never thrown on", () => {
  // Steps nested 50,000 deep (built as text: JSON.stringify itself would overflow the stack).
  const depth = 50_000
  const deep =
    '{"status": "failed", "steps": ['.repeat(depth) +
    '{"status": "failed", "location": "tests/deep.spec.ts:1:1"}' +
    ']}'.repeat(depth)
  const details = [
    'not json',
    'null',
    '[1, 2]',
    '"text"',
    '{"browserCheckResult": null}',
    '{"browserCheckResult": [1]}',
    '{"browserCheckResult": {"tests": {"failed": true}}}',
    '{"browserCheckResult": {"tests": [null, 5, "x", {"failed": true, "steps": 5, "errors": "x"}]}}',
    '{"browserCheckResult": {"tests": [{"failed": true, "steps": [null, {"status": "failed", "steps": {}, "location": 7}]}]}}',
    '{"browserCheckResult": {"errors": 5}}',
    '{"browserCheckResult": {"errors": [null, {"stack": 12}]}}',
    JSON.stringify({ browserCheckResult: { tests: Array(100_000).fill({ failed: true, steps: 'x' }) } }),
    `{"browserCheckResult": {"tests": [{"failed": true, "steps": [${deep}]}]}}`,
  ]
  for (const detail of details) {
    const found = failingPhase('BROWSER', 'SCRIPT', 'buy: Error: failed', { detail } as CheckResultsTable)
    assert.deepEqual(found, { phase: 'SCRIPT', detail: null }, detail.slice(0, 100))
  }
  const dns = failingPhase('DNS', 'ASSERTION', 'Assertion failed', {
    detail: '{"dnsCheckResult": {"responseCode": {"x": 1}}}',
  } as CheckResultsTable)
  assert.deepEqual(dns, { phase: 'ASSERTION', detail: 'Assertion failed' })
})

// Scanned the quadratic way, texts this long took tens of minutes (a node's event loop frozen all along),
// where they now take milliseconds.
test('long texts in an error or a detail are scanned in one pass, and cut where the evidence shows them', () => {
  const long = 'a'.repeat(1_000_000)
  const sample = (detail: unknown) => ({ detail: JSON.stringify(detail) }) as CheckResultsTable
  assert.deepEqual(failingPhase('BROWSER', 'SCRIPT', long), { phase: 'SCRIPT', detail: null })
  const unlocated = sample({
    browserCheckResult: {
      tests: [{ failed: true, steps: [{ status: 'failed', location: long }], errors: [{ stack: long }] }],
      errors: [{ stack: `${long}.ts:` }],
    },
  })
  assert.deepEqual(failingPhase('BROWSER', 'SCRIPT', 'Error: failed', unlocated), {
    phase: 'SCRIPT',
    detail: null,
  })
  // A location is found however far into the text it is; one absurdly long is cut as it is shown.
  const located = failingPhase('BROWSER', 'SCRIPT', `${long} at tests/checkout.spec.ts:12:5`)
  assert.deepEqual(located, { phase: 'SCRIPT', detail: 'tests/checkout.spec.ts:12' })
  const longPath = failingPhase('BROWSER', 'SCRIPT', `Error at ${long}.spec.ts:12:5`)
  assert.equal(longPath.detail?.length, 2048)
  assert.ok(longPath.detail?.endsWith('aaa…'))
  const dns = failingPhase('DNS', 'ASSERTION', 'x', sample({ dnsCheckResult: { responseCode: long } }))
  assert.equal(dns.detail, `response code ${'a'.repeat(2048 - 'response code '.length - 1)}…`)
  const status = failingPhase('API', 'ASSERTION', `${'STATUS_CODE '.repeat(100_000)}EQUALS "200", got 503`)
  assert.deepEqual(status, { phase: 'HTTP_STATUS', detail: '503' })
  const assertion = failingPhase('API', 'ASSERTION', `Assertion failed: ${long}`)
  assert.deepEqual([assertion.phase, assertion.detail?.length], ['ASSERTION', 2048])
  const tcp = failingPhase('TCP', 'NETWORK_ERROR', `connect ECONNREFUSED${long}`)
  assert.deepEqual([tcp.phase, tcp.detail?.length], ['TCP', 2048])
  // Only a test marked failed (true) is looked into.
  const notFailed = sample({
    browserCheckResult: {
      tests: [{ failed: 'no', steps: [{ status: 'failed', location: 'tests/a.spec.ts:1:1' }] }],
    },
  })
  assert.deepEqual(failingPhase('BROWSER', 'SCRIPT', 'x', notFailed), { phase: 'SCRIPT', detail: null })
})

for (const engine of testEngines()) {
  describe(`root cause analysis on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-09-01T12:00:00.000Z')
    const T0 = Date.parse('2026-09-01T10:00:00.000Z')
    let model: Awaited<ReturnType<typeof fakeModel>>
    let writer: Tenant
    let dnsGroupId = ''

    before(async () => {
      model = await fakeModel()
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      await t.close()
      await model.close()
    })

    const newCheck = async (name: string, url: string) => {
      const res = await t.call({
        method: 'POST',
        url: '/v1/checks/api?autoAssignAlerts=false',
        payload: { name, activated: false, locations: ['local', 'eu-west-1'], request: { url } },
      })
      assert.equal(res.statusCode, 201, res.body)
      return { id: json(res).id as string, accountId: t.owner.accountId, checkType: 'API' }
    }
    const httpDetail = (
      url: string,
      o: { status: number; body: string; issuer: string; firstByte: number },
    ) => ({
      apiCheckResult: {
        request: { method: 'GET', url, headers: {} },
        response: o.status ? { status: o.status, statusText: '', headers: {}, body: o.body } : null,
        timingPhases: {
          wait: 0,
          dns: 4,
          tcp: 3,
          tls: 8,
          firstByte: o.firstByte,
          download: 2,
          total: o.firstByte + 17,
        },
        assertions: [],
        tls: {
          subject: 'CN=shop.test',
          issuer: o.issuer,
          validTo: o.issuer === 'R3' ? '2026-10-01' : '2026-12-01',
          daysRemaining: 30,
        },
      },
    })
    const groupsOf = async (checkId: string) =>
      json(await t.call({ method: 'GET', url: `/v1/error-groups/checks/${checkId}` }))
    const request = async (groupId: string, payload?: unknown, as?: Tenant) =>
      t.call({
        method: 'POST',
        url: `/v1/root-cause-analyses/error-groups/${groupId}`,
        ...(payload === undefined ? {} : { payload: payload as object }),
        as: as ?? writer,
      })
    const analysisOf = async (id: string) =>
      json(await t.call({ method: 'GET', url: `/v1/root-cause-analyses/${id}` }))
    /** A new check (at `https://${name}.shop.test/`) whose one run failed its DNS lookup, and its error group. */
    const failedOnce = async (name: string) => {
      const check = await newCheck(name, `https://${name}.shop.test/`)
      await storeSeedResult(t.ctx, check, {
        atMs: T0,
        location: 'local',
        failed: true,
        responseTime: 2,
        errorType: 'NETWORK_ERROR',
        errorMessage: `DNS lookup failed: getaddrinfo ENOTFOUND ${name}.shop.test`,
        detail: {},
      })
      const [group] = await groupsOf(check.id)
      return { check, group }
    }
    const analysesWhere = (column: 'check_id' | 'error_group_id', id: string) =>
      t.store.db.selectFrom('root_cause_analyses').select('id').where(column, '=', id).execute()

    test('a staged DNS incident in one location: phase, start, location and a shared dependency', async () => {
      writer = await t.addUser('READ_WRITE')
      const url = 'https://api.shop.test/health'
      const check = await newCheck('shop api', url)
      const cdn = await newCheck('cdn', 'https://cdn.shop.test/app.js')
      for (let at = T0 - 6 * HOUR; at < T0 + 90 * MINUTE; at += 5 * MINUTE) {
        for (const location of ['local', 'eu-west-1']) {
          const failing = location === 'eu-west-1' && at >= T0
          await storeSeedResult(t.ctx, check, {
            atMs: at + (location === 'local' ? 0 : MINUTE),
            location,
            failed: failing,
            responseTime: failing ? 2 : 120,
            errorType: failing ? 'NETWORK_ERROR' : null,
            errorMessage: failing ? 'DNS lookup failed: getaddrinfo ENOTFOUND api.shop.test' : null,
            statusCode: failing ? null : 200,
            detail: failing
              ? { apiCheckResult: { request: { method: 'GET', url, headers: {} }, response: null } }
              : httpDetail(url, { status: 200, body: 'ok', issuer: 'R3', firstByte: 100 }),
          })
        }
        // Another check of the account loses DNS in eu-west-1 three minutes later: a shared dependency.
        const cdnFailing = at >= T0 + 3 * MINUTE
        await storeSeedResult(t.ctx, cdn, {
          atMs: at + 2 * MINUTE,
          location: 'eu-west-1',
          failed: cdnFailing,
          responseTime: 3,
          errorType: cdnFailing ? 'NETWORK_ERROR' : null,
          errorMessage: cdnFailing ? 'DNS lookup failed: getaddrinfo EAI_AGAIN cdn.shop.test' : null,
          detail: {},
        })
      }
      const [group] = await groupsOf(check.id)
      dnsGroupId = group.id

      const accepted = await request(group.id, {
        userContext: 'We moved our DNS zone to a new provider today',
      })
      assert.equal(accepted.statusCode, 202, accepted.body)
      const { id, status } = json(accepted)
      assert.deepEqual(Object.keys(json(accepted)).sort(), ['id', 'status'])
      assert.equal(status, 'PENDING')
      // Unfinished, it answers the hosted 202 shape: no nulls for what only a finished analysis has.
      const pending = await t.call({ method: 'GET', url: `/v1/root-cause-analyses/${id}` })
      assert.equal(pending.statusCode, 202, pending.body)
      assert.deepEqual(Object.keys(json(pending)).sort(), [
        'checkId',
        'checkType',
        'created_at',
        'errorGroupId',
        'id',
        'running',
        'status',
        'updated_at',
        'userContext',
      ])
      assert.deepEqual([json(pending).status, json(pending).running], ['PENDING', false])

      await createRootCauseWorker(t.ctx).runOnce()
      const done = await analysisOf(id)
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done))
      assert.equal(done.provider, 'svc-rules')
      assert.equal(done.checkType, 'API')
      assert.equal(done.userContext, 'We moved our DNS zone to a new provider today')
      const { analysis } = done
      assert.equal(analysis.failingPhase, 'DNS')
      assert.equal(analysis.classification, 'DNS_RESOLUTION')
      assert.equal(analysis.phaseDetail, 'api.shop.test')
      assert.equal(analysis.since, iso(T0 + MINUTE))
      assert.deepEqual(
        analysis.affectedLocations.map((l: any) => [l.location, l.since, l.failures, l.lastGoodBefore]),
        [['eu-west-1', iso(T0 + MINUTE), 18, iso(T0 - 4 * MINUTE)]],
      )
      assert.deepEqual(analysis.healthyLocations, ['local'])
      assert.deepEqual(
        analysis.similarGroups.map((g: any) => [g.checkName, g.sameError]),
        [['cdn', false]],
      )
      assert.match(analysis.summary, /DNS resolution of api\.shop\.test fails/)
      assert.match(analysis.summary, /eu-west-1 \(1 of 2 locations\) since 2026-09-01T10:01:00\.000Z/)
      assert.match(analysis.summary, /local kept passing/)
      assert.match(analysis.summary, /shared dependency/)
      assert.match(analysis.summary, /You noted: "We moved our DNS zone/)
      assert.ok(analysis.nextSteps.some((s: string) => /DNS change you mention/.test(s)))
      assert.ok(analysis.nextSteps[0].includes('what the failing checks share'))
      assert.equal(analysis.changes.length, 0, JSON.stringify(analysis.changes))
      assert.ok(done.durationMs >= 0)
      assert.ok(done.completedAt)
    })

    test('what changed at the start: config edit, certificate, status, size and latency', async () => {
      writer = await t.addUser('READ_WRITE')
      const url = 'https://pay.shop.test/api'
      const check = await newCheck('payments', url)
      const T1 = Date.parse('2026-09-01T11:00:00.000Z')
      const store = (at: number, failing: boolean) =>
        storeSeedResult(t.ctx, check, {
          atMs: at,
          location: 'local',
          failed: failing,
          responseTime: failing ? 917 : 117,
          errorType: failing ? 'ASSERTION' : null,
          errorMessage: failing ? 'Status code 503 is not below 400' : null,
          statusCode: failing ? 503 : 200,
          detail: failing
            ? httpDetail(url, { status: 503, body: 'unavailable', issuer: 'E1', firstByte: 900 })
            : httpDetail(url, { status: 200, body: 'x'.repeat(2000), issuer: 'R3', firstByte: 100 }),
        })
      for (let at = T1 - 3 * HOUR; at < T1 - 5 * MINUTE; at += 10 * MINUTE) await store(at, false)
      nowMs = T1 - 3 * MINUTE
      const edited = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { name: 'payments v2' },
      })
      assert.equal(edited.statusCode, 200, edited.body)
      for (let at = T1; at < T1 + HOUR; at += 10 * MINUTE) await store(at, true)
      nowMs = Date.parse('2026-09-01T12:00:00.000Z')
      const [group] = await groupsOf(check.id)
      const { id } = json(await request(group.id))
      await createRootCauseWorker(t.ctx).runOnce()
      const { status, analysis } = await analysisOf(id)
      assert.equal(status, 'COMPLETED')
      assert.equal(analysis.failingPhase, 'HTTP_STATUS')
      assert.equal(analysis.phaseDetail, '503')
      assert.equal(analysis.since, iso(T1))
      assert.deepEqual(
        analysis.changes.map((c: any) => c.kind),
        ['CHECK_CONFIG', 'CERTIFICATE', 'RESPONSE_STATUS', 'RESPONSE_SIZE', 'LATENCY'],
      )
      assert.match(analysis.changes[0].description, /3 minutes before the first failure/)
      assert.match(analysis.changes[1].description, /issuer R3 → E1/)
      assert.match(analysis.changes[2].description, /200 before and 503 since/)
      assert.match(analysis.changes[4].description, /firstByte took about 100 ms before and 900 ms since/)
      assert.match(analysis.nextSteps[0], /certificate/)
      assert.match(analysis.nextSteps[1], /configuration change/)
      assert.equal(analysis.userContext, '')
    })

    test('texts of a detail the changes show (an agent may send any length) are cut at 2,048 characters', async () => {
      writer = await t.addUser('READ_WRITE')
      const check = await newCheck('long texts', 'https://long.shop.test/api')
      const T3 = Date.parse('2026-09-01T11:00:00.000Z')
      const url = (letter: string) => `https://long.shop.test/${letter.repeat(100_000)}`
      const store = (at: number, failing: boolean) => {
        const detail = failing
          ? httpDetail(url('b'), { status: 503, body: '', issuer: 'E'.repeat(100_000), firstByte: 100 })
          : httpDetail(url('a'), { status: 200, body: '', issuer: 'R'.repeat(100_000), firstByte: 100 })
        detail.apiCheckResult.request.method = failing ? 'P'.repeat(100_000) : 'GET'
        return storeSeedResult(t.ctx, check, {
          atMs: at,
          location: 'local',
          failed: failing,
          responseTime: 117,
          errorType: failing ? 'ASSERTION' : null,
          errorMessage: failing ? 'Status code 503 is not below 400' : null,
          statusCode: failing ? 503 : 200,
          detail,
        })
      }
      for (let at = T3 - HOUR; at < T3; at += 10 * MINUTE) await store(at, false)
      for (let at = T3; at < T3 + HOUR; at += 10 * MINUTE) await store(at, true)
      const [group] = await groupsOf(check.id)
      const { id } = json(await request(group.id))
      await createRootCauseWorker(t.ctx).runOnce()
      const { status, analysis } = await analysisOf(id)
      assert.equal(status, 'COMPLETED')
      const changes = Object.fromEntries(analysis.changes.map((c: any) => [c.kind, c.description]))
      const cut = (text: string) => `${text.slice(0, 2047)}…`
      assert.ok(
        changes.REQUEST ===
          `The request changed from GET ${cut(url('a'))} to ${cut('P'.repeat(100_000))} ${cut(url('b'))}.`,
        String(changes.REQUEST).slice(0, 200),
      )
      assert.ok(
        changes.CERTIFICATE?.startsWith(
          `The certificate changed around the start: issuer ${cut('R'.repeat(100_000))} → ${cut('E'.repeat(100_000))},`,
        ),
        String(changes.CERTIFICATE).slice(0, 200),
      )
      // The changes, the summary and the evidence each show them (uncut, they made 1.2 MB).
      assert.ok(JSON.stringify(analysis).length < 100_000, `${JSON.stringify(analysis).length} characters`)
    })

    test('results with malformed details still give a completed analysis from what is readable', async () => {
      writer = await t.addUser('READ_WRITE')
      const url = 'https://odd.shop.test/api'
      const check = await newCheck('odd agent', url)
      const T2 = Date.parse('2026-09-01T11:00:00.000Z')
      // What an agent may post as a run's detail (its type is not checked), stored under the type's key.
      const odd: unknown[] = [
        null,
        [1, 2],
        'text',
        7,
        [{ request: 1 }],
        {
          request: 'GET /',
          response: { status: '200', headers: null, body: 5 },
          tls: 'R3',
          timingPhases: null,
        },
        {
          request: { method: {}, url: [] },
          response: { status: 200, headers: { 'content-length': {} }, body: null },
          tls: { issuer: 5, validTo: null },
          timingPhases: { dns: 'slow', tcp: null, firstByte: { ms: 1 } },
        },
        { timingPhases: 7, tests: { failed: true }, errors: 5 },
        { tests: Array(50_000).fill({ failed: true, steps: 'x' }), errors: [null, { stack: 3 }] },
      ]
      let i = 0
      for (let at = T2 - 2 * HOUR; at < T2 + HOUR; at += 5 * MINUTE) {
        const failing = at >= T2
        await storeSeedResult(t.ctx, check, {
          atMs: at,
          location: 'local',
          failed: failing,
          responseTime: 50,
          errorType: failing ? 'SCRIPT' : null,
          errorMessage: failing ? 'Error: the agent says no' : null,
          detail: { apiCheckResult: odd[i++ % odd.length] },
        })
      }
      const [group] = await groupsOf(check.id)
      const accepted = await request(group.id)
      assert.equal(accepted.statusCode, 202, accepted.body)
      await createRootCauseWorker(t.ctx).runOnce()
      const done = await analysisOf(json(accepted).id)
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done))
      assert.equal(done.analysis.failingPhase, 'SCRIPT')
      assert.equal(done.analysis.phaseDetail, null)
      assert.equal(done.analysis.since, iso(T2))
      assert.deepEqual(
        done.analysis.affectedLocations.map((l: any) => [l.location, l.failures]),
        [['local', 12]],
      )
      assert.deepEqual(done.analysis.changes, [])
    })

    test('with SVC_LLM_URL the model writes the summary from the same evidence; its failure fails the job', async () => {
      writer = await t.addUser('READ_WRITE')
      const worker = createRootCauseWorker(t.ctx, {
        llm: { url: model.url, model: 'gpt-test', apiKey: 'sk-test-123' },
      })
      const { id } = json(await request(dnsGroupId, { userContext: null }))
      await worker.runOnce()
      const done = await analysisOf(id)
      assert.equal(done.status, 'COMPLETED', JSON.stringify(done))
      assert.equal(done.provider, 'openai-compatible')
      assert.equal(done.model, 'fake-model-1')
      assert.equal(done.analysis.summary, 'DNS for api.shop.test fails in eu-west-1 since 10:00.')
      assert.equal(done.analysis.failingPhase, 'DNS', 'the rules still fill the structured fields')
      const [sent] = model.requests
      assert.equal(sent?.url, '/v1/chat/completions')
      assert.equal(sent?.headers.authorization, 'Bearer sk-test-123')
      assert.equal(sent?.body.model, 'gpt-test')
      assert.equal(sent?.body.messages[0].role, 'system')
      const evidence = JSON.parse(sent?.body.messages[1].content)
      assert.equal(evidence.evidence.phase, 'DNS')
      assert.equal(evidence.evidence.affectedLocations[0].location, 'eu-west-1')
      assert.equal(evidence.evidence.since, iso(T0 + MINUTE))

      model.state.status = 503
      const failing = json(await request(dnsGroupId, { userContext: 'after the deploy' }))
      await worker.runOnce()
      const failed = await analysisOf(failing.id)
      assert.equal(failed.status, 'FAILED')
      assert.match(failed.failureReason, /The model at SVC_LLM_URL answered 503/)
      assert.equal(failed.analysis, null)
      assert.doesNotMatch(failed.failureReason, /sk-test/)
      model.state.status = 200
    })

    test('a started worker wakes on a request (it looks by itself only hourly here); a job of a dead node is taken over', async () => {
      writer = await t.addUser('READ_WRITE')
      const worker = createRootCauseWorker(t.ctx, { fallbackMs: 3_600_000 })
      worker.start()
      try {
        const { id } = json(await request(dnsGroupId))
        let status = 'PENDING'
        for (let i = 0; i < 100 && status !== 'COMPLETED'; i++) {
          await new Promise((done) => setTimeout(done, 50))
          status = (await analysisOf(id)).status
        }
        assert.equal(status, 'COMPLETED')
      } finally {
        await worker.stop()
      }

      // A node claims a job and dies: after its lease the job runs elsewhere, once.
      const { id } = json(await request(dnsGroupId))
      const claimed = await claimNext(t.ctx, 'dead-node', nowMs, nowMs + 60_000)
      assert.equal(claimed?.id, id)
      const running = async () => {
        const { status, running } = await analysisOf(id)
        return [status, running]
      }
      assert.deepEqual(await running(), ['PENDING', true])
      const survivor = createRootCauseWorker(t.ctx)
      await survivor.runOnce()
      assert.deepEqual(await running(), ['PENDING', true], 'the lease still holds')
      nowMs += 61_000
      await survivor.runOnce()
      assert.equal((await analysisOf(id)).status, 'COMPLETED')

      // A job whose nodes keep dying is given up after three attempts.
      const doomed = json(await request(dnsGroupId))
      for (let i = 0; i < 3; i++) {
        await claimNext(t.ctx, `dead-${i}`, nowMs, nowMs + 1000)
        nowMs += 2000
      }
      await survivor.runOnce()
      const given = await analysisOf(doomed.id)
      assert.equal(given.status, 'FAILED')
      assert.match(given.failureReason, /interrupted 3 times/)
    })

    test('an analysis requested while its check is deleted: the group’s 404, no analysis left behind', async () => {
      writer = await t.addUser('READ_WRITE')
      const { check, group } = await failedOnce('going')
      // The check's deletion has locked it and waits where it deletes what names it; then the request.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('check_tags'), [
        () => t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` }),
        () => request(group.id, {}),
      ])
      assert.deepEqual(
        answers.map((res) => [res.statusCode, res.body && json(res).message]),
        [
          [204, ''],
          [404, `Error group ${group.id} not found`],
        ],
      )
      assert.deepEqual(await analysesWhere('check_id', check.id), [])
    })

    test('an analysis requested while retention deletes its archived group: 404, no analysis left behind', async () => {
      writer = await t.addUser('READ_WRITE')
      const { group } = await failedOnce('archived')
      await t.store.db
        .updateTable('error_groups')
        .set({ archived: true })
        .where('id', '=', group.id)
        .execute()
      // Retention has deleted the group and waits where it deletes what names it; then the request.
      const answers = await inTurnWhileHeld<unknown>(t.ctx, holdingTable('root_cause_analyses'), [
        () => deleteGroupsBefore(t.ctx, t.owner.accountId, new Date(T0 + HOUR).toISOString()),
        () => request(group.id, {}),
      ])
      const [deleted, requested] = answers as [number, Awaited<ReturnType<typeof request>>]
      assert.equal(deleted, 1)
      assert.deepEqual(
        [requested.statusCode, json(requested).message],
        [404, `Error group ${group.id} not found`],
      )
      assert.deepEqual(await analysesWhere('error_group_id', group.id), [])
    })

    test('bad requests: unknown group, long context, another account, roles, 10 per minute', async () => {
      writer = await t.addUser('READ_WRITE')
      assert.equal((await request('00000000-0000-4000-8000-000000000000')).statusCode, 404)
      const long = await request(dnsGroupId, { userContext: 'x'.repeat(257) })
      assert.equal(long.statusCode, 400)
      assert.match(json(long).message, /userContext/)
      assert.equal((await request(dnsGroupId, { other: 1 })).statusCode, 400)
      const reader = await t.addUser('READ_ONLY')
      assert.equal((await request(dnsGroupId, {}, reader)).statusCode, 403)
      const stranger = await ownerOfAnotherAccount(t)
      assert.equal((await request(dnsGroupId, {}, stranger)).statusCode, 404)
      const mine = json(await request(dnsGroupId, {}))
      assert.equal(
        (await t.call({ method: 'GET', url: `/v1/root-cause-analyses/${mine.id}`, as: stranger })).statusCode,
        404,
      )

      const limited = await t.addUser('READ_WRITE')
      const statuses: number[] = []
      for (let i = 0; i < 11; i++) statuses.push((await request(dnsGroupId, {}, limited)).statusCode)
      assert.deepEqual(statuses, [...Array(10).fill(202), 429])
    })
  })
}
