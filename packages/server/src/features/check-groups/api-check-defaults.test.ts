import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { startHeaderRecorder } from '@svc/runner/testing'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'

const DEFAULTS = {
  headers: [
    { key: 'X-Team', value: 'group' },
    { key: 'X-Group-Only', value: 'g' },
  ],
  queryParameters: [
    { key: 'page', value: '1' },
    { key: 'lang', value: 'en' },
  ],
  assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
  basicAuth: { username: 'admin', password: 'abc12345' },
}

/** DEFAULTS as answered: the schema's defaults filled in. */
const SAVED = {
  headers: DEFAULTS.headers.map((header) => ({ ...header, locked: false })),
  queryParameters: DEFAULTS.queryParameters.map((parameter) => ({ ...parameter, locked: false })),
  assertions: DEFAULTS.assertions.map((assertion) => ({ ...assertion, property: '' })),
  basicAuth: DEFAULTS.basicAuth,
}

for (const engine of testEngines()) {
  describe(`a group's API check defaults on ${engine.engine}`, () => {
    let t: TestApp
    let target: Awaited<ReturnType<typeof startHeaderRecorder>>
    let baseUrl: string
    before(async () => {
      target = await startHeaderRecorder()
      baseUrl = `${target.url.replace(/\/$/, '')}/v1`
      t = await createTestApp(engine)
    })
    after(async () => {
      await t.close()
      await target.close()
    })

    const call = async (method: string, url: string, payload?: object) => {
      const res = await t.call({ method: method as 'GET', url, payload })
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
      return json(res)
    }

    test('are stored, answered whole, and refused when they name another account’s snippet', async () => {
      const bare = await call('POST', '/v1/check-groups', { name: 'Bare' })
      assert.deepEqual(bare.apiCheckDefaults, {
        url: '',
        headers: [],
        queryParameters: [],
        assertions: [],
        basicAuth: null,
      })
      assert.deepEqual(
        [bare.setupSnippetId, bare.tearDownSnippetId, bare.localSetupScript, bare.localTearDownScript],
        [null, null, null, null],
      )
      const snippet = await call('POST', '/v1/snippets', { name: 'Setup', script: 'request.headers.a = 1' })
      const group = await call('POST', '/v2/check-groups', {
        name: 'With defaults',
        apiCheckDefaults: { url: baseUrl, ...DEFAULTS },
        setupSnippetId: snippet.id,
        localTearDownScript: 'console.log(response.statusCode)',
      })
      assert.deepEqual(group.apiCheckDefaults, { url: baseUrl, ...SAVED })
      assert.deepEqual(
        [group.setupSnippetId, group.localTearDownScript],
        [snippet.id, 'console.log(response.statusCode)'],
      )
      assert.deepEqual(
        (await call('GET', `/v1/check-groups/${group.id}`)).apiCheckDefaults,
        group.apiCheckDefaults,
      )

      const other = await ownerOfAnotherAccount(t)
      const foreign = await t.call({
        method: 'PUT',
        url: `/v2/check-groups/${group.id}`,
        payload: { name: 'x', tearDownSnippetId: snippet.id + 1000 },
      })
      assert.equal(foreign.statusCode, 400, foreign.body)
      assert.deepEqual(json(foreign).attributes.errors, [
        {
          path: 'body.tearDownSnippetId',
          message: `names snippet ${snippet.id + 1000}, which this account doesn't have`,
        },
      ])
      const theirs = await t.call({
        method: 'POST',
        url: '/v1/check-groups',
        payload: { name: 'Theirs', setupSnippetId: snippet.id },
        as: other,
      })
      assert.equal(theirs.statusCode, 400, theirs.body)
    })

    test('are applied to the group’s API checks at run time: base URL, headers, query, auth, assertions', async () => {
      const group = await call('POST', '/v1/check-groups', {
        name: 'API defaults',
        apiCheckDefaults: { url: baseUrl, ...DEFAULTS },
      })
      const check = await call('POST', '/v1/checks/api', {
        name: 'Customers',
        activated: false,
        groupId: group.id,
        request: {
          method: 'GET',
          url: '{{GROUP_BASE_URL}}/customers',
          headers: [{ key: 'x-team', value: 'check' }],
          queryParameters: [{ key: 'page', value: '2' }],
          assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'thanks' }],
        },
      })
      // As saved, the check keeps its own request; in its group, the defaults are in it.
      assert.equal(check.request.url, '{{GROUP_BASE_URL}}/customers')
      assert.equal(
        (await call('GET', `/v2/check-groups/${group.id}/checks/${check.id}`)).request.headers.length,
        1,
      )
      const inGroup = await call('GET', `/v1/check-groups/${group.id}/checks/${check.id}`)
      assert.deepEqual(inGroup.request.headers, [
        { key: 'x-team', value: 'check', locked: false },
        { key: 'X-Group-Only', value: 'g', locked: false },
      ])
      assert.deepEqual(inGroup.request.queryParameters, [
        { key: 'page', value: '2', locked: false },
        { key: 'lang', value: 'en', locked: false },
      ])
      assert.deepEqual(inGroup.request.basicAuth, DEFAULTS.basicAuth)
      assert.equal(inGroup.request.assertions.length, 2)

      const before = target.received.length
      const result = await call('POST', `/v1/checks/${check.id}/trigger`)
      const [sent] = target.received.slice(before)
      assert.ok(sent, 'the target got the request')
      assert.equal(sent.path, '/v1/customers?page=2&lang=en')
      assert.equal(sent.headers['x-team'], 'check')
      assert.equal(sent.headers['x-group-only'], 'g')
      assert.equal(sent.headers.authorization, `Basic ${Buffer.from('admin:abc12345').toString('base64')}`)
      assert.equal(result.hasFailures, false, JSON.stringify(result))
      const assertions = result.apiCheckResult.assertions.map((a: { source: string }) => a.source)
      assert.deepEqual(assertions, ['TEXT_BODY', 'STATUS_CODE'])

      // The group's assertions count: a status the group refuses fails the check.
      await call('PUT', `/v1/check-groups/${group.id}`, {
        name: 'API defaults',
        apiCheckDefaults: {
          url: baseUrl,
          assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '201' }],
        },
      })
      const failed = await call('POST', `/v1/checks/${check.id}/trigger`)
      assert.equal(failed.hasFailures, true)
    })

    test('a check out of the group is 404 on the group’s check routes', async () => {
      const group = await call('POST', '/v1/check-groups', { name: 'Empty' })
      const check = await call('POST', '/v1/checks/api', {
        name: 'Loose',
        activated: false,
        request: { method: 'GET', url: baseUrl },
      })
      for (const version of ['v1', 'v2']) {
        const res = await t.call({
          method: 'GET',
          url: `/${version}/check-groups/${group.id}/checks/${check.id}`,
        })
        assert.equal(res.statusCode, 404, res.body)
      }
      const listed = await call('GET', `/v2/check-groups/${group.id}/checks`)
      assert.deepEqual(listed, [])
      // Outside a group {{GROUP_BASE_URL}} stays as written: the run fails with a clear error.
      const orphan = await call('POST', '/v1/checks/api', {
        name: 'No group',
        activated: false,
        request: { method: 'GET', url: '{{GROUP_BASE_URL}}/customers' },
      })
      const result = await call('POST', `/v1/checks/${orphan.id}/trigger`)
      assert.equal(result.hasFailures, true)
      assert.match(result.error.message, /GROUP_BASE_URL|URL/)
    })
  })
}
