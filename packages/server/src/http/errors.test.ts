import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Database } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import Fastify from 'fastify'
import { type Kysely, sql } from 'kysely'
import { insertService } from '../features/status-page-services/status-page-services.repo.ts'
import { writeLockHeldElsewhere } from '../testing/sqlite-write-lock.ts'
import { createTestApp, json, type TestApp } from '../testing/test-app.ts'
import { handleError, validationError } from './errors.ts'

const engine = testEngines()[0]!

describe('errors in the spec shape', () => {
  let t: TestApp
  const logLines: Record<string, unknown>[] = []
  before(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line))
        done()
      },
    })
    t = await createTestApp(engine, { logger: { level: 'debug', stream } })
  })
  after(() => t.close())

  const postVariables = (payload: string, contentType = 'application/json') =>
    t.call({ method: 'POST', url: '/v1/variables', payload, headers: { 'content-type': contentType } })

  test('malformed JSON is 400', async () => {
    const res = await postVariables('{"key": "A",')
    assert.equal(res.statusCode, 400)
    assert.deepEqual(json(res), { statusCode: 400, error: 'Bad Request', message: 'Body is not valid JSON' })
  })

  test('content-type application/json with an empty body is no body: fine where none is taken, 400 naming body where one is needed', async () => {
    const jsonHeader = { 'content-type': 'application/json' }
    await t.call({ method: 'POST', url: '/v1/variables', payload: { key: 'EMPTY_BODY', value: 'v' } })
    const deleted = await t.call({ method: 'DELETE', url: '/v1/variables/EMPTY_BODY', headers: jsonHeader })
    assert.equal(deleted.statusCode, 204, deleted.body)
    assert.equal(deleted.body, '')
    const gone = await t.call({ method: 'DELETE', url: '/v1/variables/EMPTY_BODY', headers: jsonHeader })
    assert.equal(gone.statusCode, 404)
    assert.equal(json(gone).error, 'Not Found')

    const check = json(
      await t.call({
        method: 'POST',
        url: '/v1/checks/tcp',
        payload: { name: 'closed port', activated: false, request: { hostname: '127.0.0.1', port: 9 } },
      }),
    )
    const triggered = await t.call({
      method: 'POST',
      url: `/v1/checks/${check.id}/trigger`,
      headers: jsonHeader,
    })
    assert.equal(triggered.statusCode, 200, triggered.body)
    assert.equal(json(triggered).checkId, check.id)

    const withoutHeader = await t.call({ method: 'POST', url: '/v1/variables' })
    const withHeader = await postVariables('')
    assert.equal(withHeader.statusCode, 400)
    assert.deepEqual(json(withHeader), json(withoutHeader))
    assert.match(json(withHeader).message, /^body /)
    assert.equal(json(withHeader).attributes.errors[0].path, 'body')

    // Only whitespace is no body too.
    const blank = await postVariables(' ')
    assert.equal(blank.statusCode, 400)
    assert.deepEqual(json(blank), json(withoutHeader))
  })

  test('wrong types and unknown fields name every offending path', async () => {
    const res = await postVariables(JSON.stringify({ key: 5, value: true, extra: 1 }))
    assert.equal(res.statusCode, 400)
    const body = json(res)
    assert.equal(body.error, 'Bad Request')
    assert.equal(body.message, 'body.extra is not allowed')
    assert.deepEqual(body.attributes.errors.map((e: { path: string }) => e.path).sort(), [
      'body.extra',
      'body.key',
      'body.value',
    ])
    const missing = json(await postVariables(JSON.stringify({ key: 'A' })))
    assert.equal(missing.message, 'body.value is required')
  })

  test('a body over 1 MiB is 413; an unsupported media type is 415', async () => {
    const huge = await postVariables(JSON.stringify({ key: 'A', value: 'x'.repeat(1024 * 1024) }))
    assert.equal(huge.statusCode, 413)
    assert.deepEqual(json(huge), {
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'Request body is too large',
    })
    const xml = await postVariables('<a/>', 'application/xml')
    assert.equal(xml.statusCode, 415)
    assert.equal(json(xml).error, 'Unsupported Media Type')
  })

  test('unknown routes are 404 in the error shape', async () => {
    const res = await t.call({ method: 'GET', url: '/v1/nothing-here?x=1' })
    assert.equal(res.statusCode, 404)
    assert.deepEqual(json(res), {
      statusCode: 404,
      error: 'Not Found',
      message: 'Route GET /v1/nothing-here not found',
    })
  })

  test('a path parameter too long is 414 and a broken URL escape 400, in the error shape', async () => {
    const long = await t.call({ method: 'GET', url: `/v1/checks/${'a'.repeat(600)}` })
    assert.equal(long.statusCode, 414)
    assert.deepEqual(json(long), {
      statusCode: 414,
      error: 'URI Too Long',
      message: 'A path parameter is longer than 500 characters',
    })
    const broken = await t.call({ method: 'GET', url: '/v1/checks/%E0%A4%A' })
    assert.equal(broken.statusCode, 400)
    assert.deepEqual(json(broken), {
      statusCode: 400,
      error: 'Bad Request',
      message: 'The URL path is not validly percent-encoded',
    })
  })

  test('every response has a request id, and the log line of the request carries it', async () => {
    const res = await t.call({ method: 'GET', url: '/v1/accounts/me' })
    const id = res.headers['x-request-id']
    assert.match(String(id), /^[0-9a-f-]{36}$/)
    const lines = logLines.filter((line) => line.reqId === id)
    assert.ok(
      lines.some(
        (line) => line.msg === 'request completed' && (line.res as { statusCode: number }).statusCode === 200,
      ),
    )
    const traced = await t.call({
      method: 'GET',
      url: '/v1/accounts/me',
      headers: { 'x-request-id': 'trace-42' },
    })
    assert.equal(traced.headers['x-request-id'], 'trace-42')
    const unsafe = await t.call({
      method: 'GET',
      url: '/v1/accounts/me',
      headers: { 'x-request-id': 'a b\tc' },
    })
    assert.notEqual(unsafe.headers['x-request-id'], 'a b\tc')
    const failed = await t.call({ method: 'GET', url: '/v1/accounts/me', as: null })
    assert.ok(failed.headers['x-request-id'])
  })

  test('API keys never reach the log', async () => {
    await t.call({ method: 'GET', url: '/v1/accounts/me' })
    assert.equal(JSON.stringify(logLines).includes(t.owner.key), false)
  })

  test('tokens in query strings (private status pages, subscriptions) never reach the log', async () => {
    const secrets = ['page-access-token-123', 'confirm-token-456', 'unsubscribe-token-789']
    const res = await t.call({ method: 'GET', url: `/status/no-such-page?token=${secrets[0]}`, as: null })
    await t.call({ method: 'GET', url: `/status/x/subscribe/confirm?a=1&token=${secrets[1]}`, as: null })
    await t.call({ method: 'GET', url: `/status/x/unsubscribe?TOKEN=${secrets[2]}#f`, as: null })
    for (const secret of secrets) assert.equal(JSON.stringify(logLines).includes(secret), false, secret)
    const line = logLines.find((l) => l.reqId === res.headers['x-request-id'] && l.req) as {
      req: { method: string; url: string }
    }
    assert.equal(line.req.method, 'GET')
    assert.equal(line.req.url, '/status/no-such-page?token=[REDACTED]')
  })

  test('heartbeat ping tokens never reach the log', async () => {
    const pinged = await t.call({ method: 'GET', url: '/ping/secret-ping-token-1', as: null })
    await t.call({ method: 'POST', url: '/ping/secret-ping-token-2/fail', as: null })
    for (const secret of ['secret-ping-token-1', 'secret-ping-token-2'])
      assert.equal(JSON.stringify(logLines).includes(secret), false, secret)
    const line = logLines.find((l) => l.reqId === pinged.headers['x-request-id'] && l.req) as {
      req: { url: string }
    }
    assert.equal(line.req.url, '/ping/[REDACTED]')
  })
})

for (const routeEngine of testEngines()) {
  describe(`unknown routes on ${routeEngine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(routeEngine)
    })
    after(() => t.close())

    test('an unknown route is 404 whatever body it is sent (an agent or client pointed at a wrong base URL hears so)', async () => {
      for (const [method, url, payload, as] of [
        ['POST', '/v1/nothing-here', { a: 1 }, undefined],
        ['PUT', '/nothing-here', [1], undefined],
        ['DELETE', '/v1/nothing-here', 'text', undefined],
        // An agent given SVC_API_URL=https://svc.example.com/v1 posts its heartbeat here, with no API key.
        ['POST', '/v1/agent/v1/heartbeat', { version: '1.0.0' }, null],
      ] as const) {
        const answer = await t.call({
          method,
          url,
          payload: JSON.stringify(payload),
          headers: { 'content-type': 'application/json' },
          as,
        })
        assert.equal(answer.statusCode, 404, `${method} ${url}: ${answer.body}`)
        assert.deepEqual(json(answer), {
          statusCode: 404,
          error: 'Not Found',
          message: `Route ${method} ${url} not found`,
        })
      }
    })

    test('a value of the wrong type is one issue of its field, not also one of each rule its type would be held to', async () => {
      // A number sent as text, a null for a runtime: the enum they miss says nothing more than the type.
      const cases = [
        [
          'POST',
          '/v1/checks/url',
          { name: 'x', request: { url: 'http://a.test' }, frequency: '10' },
          'body.frequency',
          'must be integer',
        ],
        ['PATCH', '/v1/accounts/me', { runtimeId: null }, 'body.runtimeId', 'must be string'],
        [
          'POST',
          '/v1/checks/browser',
          { name: 'x', script: 'x', runtimeId: 2025.04 },
          'body.runtimeId',
          'must be string',
        ],
      ] as const
      for (const [method, url, payload, path, message] of cases) {
        const answer = await t.call({ method, url, payload })
        assert.equal(answer.statusCode, 400, answer.body)
        assert.deepEqual(json(answer), {
          statusCode: 400,
          error: 'Bad Request',
          message: `${path} ${message}`,
          attributes: { errors: [{ path, message }] },
        })
      }
      // A value of the right type still hears the rule it breaks.
      const wrongValue = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'x', request: { url: 'http://a.test' }, frequency: 3 },
        }),
      )
      // A URL monitor may also run every few seconds (0, with frequencyOffset).
      assert.deepEqual(wrongValue.attributes.errors, [
        {
          path: 'body.frequency',
          message: 'must be one of 0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440',
        },
      ])
      // In a union, a branch of another type (null) doesn't hide the rule the value breaks in its own.
      const union = validationError('body', [
        {
          instancePath: '/statusCode',
          schemaPath: '#/properties/statusCode/anyOf/0/maximum',
          keyword: 'maximum',
          message: 'must be <= 999',
          params: {},
        },
        {
          instancePath: '/statusCode',
          schemaPath: '#/properties/statusCode/anyOf/1/type',
          keyword: 'type',
          message: 'must be null',
          params: {},
        },
      ])
      assert.deepEqual(union.attributes?.errors, [
        { path: 'body.statusCode', message: 'must be <= 999' },
        { path: 'body.statusCode', message: 'must be null' },
      ])
    })
  })
}

describe('unexpected failures', () => {
  test('a 500 carries nothing internal, and the log has the cause under the same request id', async () => {
    const lines: Record<string, unknown>[] = []
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)))
        done()
      },
    })
    const app = Fastify({ logger: { level: 'error', stream } })
    app.setErrorHandler(handleError)
    app.get('/boom', async () => {
      throw new Error('database password is hunter2')
    })
    const res = await app.inject({ method: 'GET', url: '/boom' })
    assert.equal(res.statusCode, 500)
    assert.deepEqual(json(res), {
      statusCode: 500,
      error: 'Internal Server Error',
      message: 'Internal Server Error',
    })
    const logged = lines.find((line) => line.msg === 'request failed')
    assert.ok(logged)
    assert.equal((logged.err as { message: string }).message, 'database password is hunter2')
    assert.ok(logged.reqId)
    await app.close()
  })
})

for (const storeEngine of testEngines()) {
  describe(`store constraints a request breaks on ${storeEngine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(storeEngine)
    })
    after(() => t.close())

    const now = new Date().toISOString()
    const serviceRow = (id: string) => ({
      id,
      account_id: t.owner.accountId,
      name: 'Checkout',
      description: null,
      created_at: now,
      updated_at: now,
    })
    /** An app whose one route saves a service (and its links) as the service layer does. */
    const appSaving = async (id: string, checkIds: string[]) => {
      const lines: Record<string, unknown>[] = []
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)))
          done()
        },
      })
      const app = Fastify({ logger: { level: 'warn', stream } })
      app.setErrorHandler(handleError)
      app.post('/save', async (_request, reply) => {
        await insertService(t.ctx, serviceRow(id), checkIds)
        return reply.status(201).send({ id })
      })
      return { app, lines }
    }
    const serviceIds = async (id: string) =>
      (await t.store.db.selectFrom('status_page_services').select('id').where('id', '=', id).execute()).length

    test('a write naming a row that is gone is 409 in the error shape, its transaction rolled back', async () => {
      const { app, lines } = await appSaving('svc-dangling', ['no-such-check'])
      const res = await app.inject({ method: 'POST', url: '/save' })
      assert.equal(res.statusCode, 409, res.body)
      assert.deepEqual(json(res), {
        statusCode: 409,
        error: 'Conflict',
        message: 'A resource this request refers to was deleted at the same time: nothing was saved',
      })
      // The service row written before the link that failed is gone with it.
      assert.equal(await serviceIds('svc-dangling'), 0)
      // The log says which constraint, for whoever wonders why (no 500, so not an error).
      const logged = lines.find((line) => line.msg === 'request conflicted with a concurrent change')
      assert.equal(logged?.level, 40)
      await app.close()
    })

    test('a unique key taken (by a write at the same time) is 409 in the error shape', async () => {
      const { app } = await appSaving('svc-twice', [])
      assert.equal((await app.inject({ method: 'POST', url: '/save' })).statusCode, 201)
      const res = await app.inject({ method: 'POST', url: '/save' })
      assert.equal(res.statusCode, 409, res.body)
      assert.deepEqual(json(res), {
        statusCode: 409,
        error: 'Conflict',
        message: 'A resource with the same unique key was saved at the same time: nothing was saved',
      })
      assert.equal(await serviceIds('svc-twice'), 1)
      await app.close()
    })

    // SQLite has one writer at a time: no deadlock to break.
    if (storeEngine.engine === 'postgres')
      test('a transaction PostgreSQL ends to break a deadlock is 409 in the error shape, nothing saved', async () => {
        await insertService(t.ctx, serviceRow('svc-first'), [])
        await insertService(t.ctx, serviceRow('svc-second'), [])
        const rename = (db: Kysely<Database>, id: string, name: string) =>
          db.updateTable('status_page_services').set({ name }).where('id', '=', id).execute()
        const routeHoldsFirst = Promise.withResolvers<void>()
        const testHoldsSecond = Promise.withResolvers<void>()
        const app = Fastify()
        app.setErrorHandler(handleError)
        app.post('/rename', async () => {
          await t.ctx.db.transaction().execute(async (tx) => {
            await rename(tx, 'svc-first', 'by the request')
            routeHoldsFirst.resolve()
            await testHoldsSecond.promise
            await rename(tx, 'svc-second', 'by the request')
          })
          return {}
        })
        const answered = app.inject({ method: 'POST', url: '/rename' })
        await t.ctx.db.transaction().execute(async (tx) => {
          // The backend that checks first ends its own transaction: on a busy machine this one's check
          // could come first though the request waited first. Checked this late, it never does.
          await sql`set local deadlock_timeout = '60s'`.execute(tx)
          await routeHoldsFirst.promise
          await rename(tx, 'svc-second', 'by the other')
          const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx)).rows[0]?.pid
          testHoldsSecond.resolve()
          const waiting = async () =>
            (
              await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                where ${pid}::int = any(pg_blocking_pids(pid))`.execute(t.ctx.db)
            ).rows[0]?.n
          while ((await waiting()) === 0) await sleep(5)
          await rename(tx, 'svc-first', 'by the other')
        })
        const res = await answered
        assert.equal(res.statusCode, 409, res.body)
        assert.deepEqual(json(res), {
          statusCode: 409,
          error: 'Conflict',
          message: 'A change made at the same time got in the way: nothing was saved; try again',
        })
        const names = await t.store.db
          .selectFrom('status_page_services')
          .select('name')
          .where('id', 'in', ['svc-first', 'svc-second'])
          .execute()
        assert.deepEqual(
          names.map((row) => row.name),
          ['by the other', 'by the other'],
        )
        await app.close()
      })
  })
}

describe('a SQLite store whose write lock another process holds', () => {
  let t: TestApp
  const logLines: Record<string, unknown>[] = []
  before(async () => {
    assert.equal(engine.engine, 'sqlite')
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line))
        done()
      },
    })
    t = await createTestApp(engine, { logger: { level: 'warn', stream } })
    // Waits 100 ms for the lock instead of 5 s: the answer is the same, the suite quicker.
    t.store.setLockWaitMs(100)
  })
  after(() => t.close())

  test('a request that waited out the busy timeout is 503 with Retry-After in the error shape, nothing saved', async () => {
    const heartbeat = json(
      await t.call({
        method: 'POST',
        url: '/v1/checks/heartbeat',
        payload: {
          name: 'busy',
          heartbeat: { period: 1, periodUnit: 'hours', grace: 1, graceUnit: 'hours' },
        },
      }),
    )
    const lock = await writeLockHeldElsewhere(t.store.url)
    let answers: Awaited<ReturnType<TestApp['call']>>[]
    try {
      answers = [
        await t.call({ method: 'POST', url: '/v1/variables', payload: { key: 'WHILE_BUSY', value: 'x' } }),
        await t.app.inject({ method: 'GET', url: new URL(heartbeat.pingUrl).pathname }),
      ]
    } finally {
      await lock.release()
    }
    for (const res of answers) {
      assert.equal(res.statusCode, 503, res.body)
      assert.deepEqual(json(res), {
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'The store is busy: nothing was saved; try again in a few seconds',
      })
      assert.equal(res.headers['retry-after'], '5')
    }
    const logged = logLines.filter((line) => line.msg === 'the store was busy with another write')
    assert.deepEqual(
      logged.map((line) => line.level),
      [40, 40],
    )
    const results = json(await t.call({ method: 'GET', url: `/v1/check-results/${heartbeat.id}` }))
    assert.deepEqual(results, [])
    const saved = await t.call({
      method: 'POST',
      url: '/v1/variables',
      payload: { key: 'WHILE_BUSY', value: 'y' },
    })
    assert.equal(saved.statusCode, 201, saved.body)
    assert.equal(json(await t.call({ method: 'GET', url: '/v1/variables/WHILE_BUSY' })).value, 'y')
  })
})
