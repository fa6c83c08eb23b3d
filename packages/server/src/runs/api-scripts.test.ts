import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { resolveChecksById } from '../features/checks/resolve-check.ts'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../testing/test-app.ts'
import { prepareJob } from './prepare.ts'

/** API checks' setup and teardown scripts, their own and their group's, run against a real target. */
for (const engine of testEngines()) {
  describe(`API check setup and teardown scripts on ${engine.engine}`, () => {
    let t: TestApp
    let base = ''
    const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = []
    const target = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => {
        body += chunk
      })
      request.on('end', () => {
        seen.push({ url: request.url ?? '', headers: request.headers, body })
        response.setHeader('content-type', 'application/json')
        response.end(JSON.stringify({ state: 'raw', token: request.headers['x-token'] ?? null }))
      })
    })
    before(async () => {
      base = (await listenOnLoopback(target)).url
      t = await createTestApp(engine)
    })
    after(async () => {
      target.close()
      await t.close()
    })

    const call = async (method: string, url: string, payload?: object) => {
      const response = await t.call({ method: method as 'GET', url, payload })
      return { status: response.statusCode, body: json(response) }
    }
    const createCheck = async (payload: object) => {
      const created = await call('POST', '/v1/checks/api', {
        name: 'scripted',
        doubleCheck: false,
        ...payload,
      })
      assert.equal(created.status, 201, JSON.stringify(created.body))
      return created.body
    }
    const trigger = async (checkId: string) => {
      const result = await call('POST', `/v1/checks/${checkId}/trigger`)
      assert.equal(result.status, 200, JSON.stringify(result.body))
      return result.body
    }
    const texts = (lines: { text: string }[]) => lines.map((line) => line.text)

    test('setup changes the request the target gets; teardown changes the body an assertion reads', async () => {
      const check = await createCheck({
        request: {
          url: `${base}/orders`,
          queryParameters: [{ key: 'page', value: '1' }],
          assertions: [
            { source: 'JSON_BODY', property: '$.state', comparison: 'EQUALS', target: 'scrubbed' },
          ],
        },
        environmentVariables: [{ key: 'TOKEN', value: 'token-from-variable' }],
        localSetupScript: `request.headers['X-Token'] = process.env.TOKEN
request.queryParameters.page = '2'
request.method = 'POST'
request.body = JSON.stringify({ id: 7 })
console.log('setup saw', request.url)`,
        localTearDownScript: `const body = JSON.parse(response.body)
console.info('teardown saw', response.statusCode, body.token)
response.body = JSON.stringify({ ...body, state: 'scrubbed' })`,
      })
      assert.equal(check.localSetupScript.startsWith('request.headers'), true)
      assert.equal(check.setupSnippetId, null)
      const result = await trigger(check.id)
      const sent = seen.at(-1)
      assert.equal(sent?.url, '/orders?page=2')
      assert.equal(sent?.headers['x-token'], 'token-from-variable')
      assert.equal(sent?.body, '{"id":7}')
      assert.equal(result.hasFailures, false, JSON.stringify(result.apiCheckResult))
      assert.equal(result.apiCheckResult.request.method, 'POST')
      assert.deepEqual(JSON.parse(result.apiCheckResult.response.body), {
        state: 'scrubbed',
        token: 'token-from-variable',
      })
      assert.deepEqual(texts(result.apiCheckResult.jobLog.setup), [`setup saw ${base}/orders`])
      assert.deepEqual(texts(result.apiCheckResult.jobLog.tearDown), ['teardown saw 200 token-from-variable'])
      assert.equal(result.apiCheckResult.jobLog.tearDown[0].level, 'info')
    })

    test('a job carries each script once: prepared in scripts, not also as the raw fields', async () => {
      const snippetId = (
        await call('POST', '/v1/snippets', { name: 'once', script: `console.log('snippet')` })
      ).body.id
      const check = await createCheck({
        request: { url: `${base}/once` },
        setupSnippetId: snippetId,
        localTearDownScript: `console.log('teardown')`,
      })
      const resolved = (await resolveChecksById(t.ctx, [check.id])).get(check.id)
      assert.ok(resolved)
      const { job } = await prepareJob(t.ctx, resolved, { location: 'eu-west-1' })
      assert.ok('definition' in job)
      const definition = job.definition as Record<string, unknown>
      assert.deepEqual(
        ['localSetupScript', 'localTearDownScript', 'setupSnippetId', 'tearDownSnippetId'].filter(
          (k) => k in definition,
        ),
        [],
      )
      assert.deepEqual(definition.scripts, {
        setup: [{ name: `setup snippet ${snippetId}`, source: `console.log('snippet')` }],
        tearDown: [{ name: 'localTearDownScript', source: `console.log('teardown')` }],
        environment: {},
      })
    })

    test("a group's snippets and scripts run around the check's own, in the hosted order", async () => {
      const snippet = async (name: string, script: string) =>
        (await call('POST', '/v1/snippets', { name, script })).body.id
      const groupSetup = await snippet(
        'group setup',
        `console.log('group snippet'); request.headers['X-Token'] = 'a'`,
      )
      const checkTearDown = await snippet('check teardown', `console.log('check snippet')`)
      const group = await call('POST', '/v1/check-groups', {
        name: 'scripted group',
        setupSnippetId: groupSetup,
        localSetupScript: `console.log('group setup'); request.headers['X-Token'] += 'b'`,
        localTearDownScript: `console.log('group teardown')`,
      })
      assert.equal(group.status, 201, JSON.stringify(group.body))
      const check = await createCheck({
        groupId: group.body.id,
        request: { url: `${base}/grouped` },
        localSetupScript: `console.log('check setup'); request.headers['X-Token'] += 'c'`,
        tearDownSnippetId: checkTearDown,
        localTearDownScript: `console.log('check teardown')`,
      })
      const result = await trigger(check.id)
      assert.equal(result.hasFailures, false, JSON.stringify(result.apiCheckResult))
      assert.equal(seen.at(-1)?.headers['x-token'], 'abc')
      assert.deepEqual(texts(result.apiCheckResult.jobLog.setup), [
        'group snippet',
        'group setup',
        'check setup',
      ])
      assert.deepEqual(texts(result.apiCheckResult.jobLog.tearDown), [
        'check snippet',
        'check teardown',
        'group teardown',
      ])
    })

    test('a throwing setup fails the run with its message and sends nothing', async () => {
      const check = await createCheck({
        request: { url: `${base}/never` },
        localSetupScript: `console.log('about to fail')\nthrow new Error('no token today')`,
      })
      const result = await trigger(check.id)
      assert.equal(result.hasFailures, true)
      assert.equal(result.hasErrors, true)
      assert.equal(
        result.apiCheckResult.requestError,
        'Setup failed in localSetupScript: Error: no token today',
      )
      assert.equal(result.error.type, 'SCRIPT')
      assert.deepEqual(texts(result.apiCheckResult.jobLog.setup), ['about to fail'])
      assert.equal(
        seen.some((request) => request.url === '/never'),
        false,
      )
    })

    test('a throwing teardown fails the run with its message, its assertions unread', async () => {
      const check = await createCheck({
        request: { url: `${base}/teardown-throws` },
        localTearDownScript: `await new Promise((resolve) => setTimeout(resolve, 10))\nthrow new TypeError('bad body')`,
      })
      const result = await trigger(check.id)
      assert.equal(result.hasFailures, true)
      assert.deepEqual(result.error, {
        type: 'SCRIPT',
        message: 'Teardown failed in localTearDownScript: TypeError: bad body',
      })
      assert.equal(result.apiCheckResult.response.status, 200)
      assert.deepEqual(result.apiCheckResult.assertions, [])
    })

    test('a script that never ends is stopped by the time limit', async () => {
      const check = await createCheck({
        request: { url: `${base}/loop` },
        localSetupScript: 'while (true) {}',
      })
      const result = await trigger(check.id)
      assert.equal(result.hasFailures, true)
      assert.equal(
        result.apiCheckResult.requestError,
        'Setup scripts were stopped after 10 s (their time limit)',
      )
      assert.equal(
        seen.some((request) => request.url === '/loop'),
        false,
      )
    })

    test('a script sees only the check’s variables, not the server’s environment or process', async () => {
      process.env.SVC_TEST_SERVER_SECRET = 'server-secret'
      const check = await createCheck({
        request: { url: `${base}/nosy` },
        environmentVariables: [{ key: 'SERVER_PID', value: String(process.pid) }],
        localSetupScript: `console.log(Object.keys(process.env).sort().join(','))
try {
  console.log(require('node:fs').readFileSync('/proc/' + process.env.SERVER_PID + '/environ', 'utf8'))
} catch (error) {
  console.log('failed: ' + error.code)
}`,
      })
      const result = await trigger(check.id)
      delete process.env.SVC_TEST_SERVER_SECRET
      assert.equal(result.hasFailures, false, JSON.stringify(result.apiCheckResult))
      // The sandbox works on the machines the suite runs on (the server's start-up says whether it does).
      assert.equal((await t.ctx.scripts.pool.start()).sandboxed, true)
      assert.deepEqual(texts(result.apiCheckResult.jobLog.setup), [
        // PWD is the sandbox's working directory, /.
        'NODE_OPTIONS,PATH,PWD,SERVER_PID',
        'failed: ENOENT',
      ])
    })

    test('a script requires the runtime’s packages and built-ins, and no other package', async () => {
      const check = await createCheck({
        request: { url: `${base}/packages` },
        localSetupScript: `console.log(typeof require('lodash').chunk, typeof require('node:crypto').randomUUID)
require('kysely')`,
      })
      const result = await trigger(check.id)
      assert.deepEqual(texts(result.apiCheckResult.jobLog.setup), ['function function'])
      assert.match(
        result.error.message,
        /^Setup failed in localSetupScript: Error: Cannot require 'kysely': /,
      )
    })

    test('the fields are checked, answered, kept by a partial update and cleared by null', async () => {
      const other = await ownerOfAnotherAccount(t)
      const theirs = await t.call({
        method: 'POST',
        url: '/v1/snippets',
        as: other,
        payload: { name: 'theirs', script: 'request.url' },
      })
      const refused = await call('POST', '/v1/checks/api', {
        name: 'x',
        request: { url: base },
        setupSnippetId: json(theirs).id,
      })
      assert.equal(refused.status, 400)
      assert.match(JSON.stringify(refused.body), /body\.setupSnippetId/)
      const tooLong = await call('POST', '/v1/checks/api', {
        name: 'x',
        request: { url: base },
        localTearDownScript: 'x'.repeat(1_000_001),
      })
      assert.equal(tooLong.status, 400)
      assert.match(JSON.stringify(tooLong.body), /localTearDownScript/)
      const check = await createCheck({ request: { url: base }, localTearDownScript: 'response.body = ""' })
      const renamed = await call('PUT', `/v1/checks/api/${check.id}`, { name: 'renamed' })
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
      assert.equal(renamed.body.localTearDownScript, 'response.body = ""')
      const cleared = await call('PUT', `/v1/checks/api/${check.id}`, { localTearDownScript: null })
      assert.equal(cleared.body.localTearDownScript, null)
      const read = await call('GET', `/v1/checks/${check.id}`)
      assert.deepEqual(
        [
          read.body.setupSnippetId,
          read.body.tearDownSnippetId,
          read.body.localSetupScript,
          read.body.localTearDownScript,
        ],
        [null, null, null, null],
      )
    })
  })
}
