import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer as createHttpsServer } from 'node:https'
import { after, before, describe, test } from 'node:test'
import type { TLSSocket } from 'node:tls'
import type { AgentJob } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { type HttpJob, type RunnerJob, runJob } from '@svc/runner'
import { listenOnLoopback, mutualTlsMaterial } from '@svc/runner/testing'
import { createScheduler } from '../../runs/scheduler.ts'
import { asAgent, latestDueMs, privateLocationWithKey } from '../../testing/agent-locations.ts'
import { rawSealedValues } from '../../testing/sealed-values.ts'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'
import { certificateForHost } from './client-certificates.service.ts'

const material = mutualTlsMaterial('svc mtls client')

for (const engine of testEngines()) {
  describe(`client certificates on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-29T10:00:00.000Z')
    // Serves only clients with a certificate of the test CA, and says whose.
    const target = createHttpsServer(
      { ...material.server, ca: material.ca, requestCert: true, rejectUnauthorized: true },
      (request, response) => {
        response.setHeader('content-type', 'application/json')
        response.end(
          JSON.stringify({ client: (request.socket as TLSSocket).getPeerCertificate().subject?.CN }),
        )
      },
    )
    let port = 0
    before(async () => {
      ;({ port } = await listenOnLoopback(target))
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      target.closeAllConnections()
      target.close()
      await t.close()
    })

    const create = (payload: object) => t.call({ method: 'POST', url: '/v1/client-certificates', payload })
    const stored = (changes: object = {}) => ({
      host: 'localhost',
      cert: material.client.cert,
      key: material.client.key,
      passphrase: material.client.passphrase,
      ca: material.ca,
      ...changes,
    })
    const clean = async () => {
      for (const certificate of json(await t.call({ method: 'GET', url: '/v1/client-certificates' })))
        await t.call({ method: 'DELETE', url: `/v1/client-certificates/${certificate.id}` })
    }

    test('creates, reads, lists and deletes in the hosted shape; the key and passphrase never come back', async () => {
      const res = await create(stored())
      assert.equal(res.statusCode, 201, res.body)
      const certificate = json(res)
      assert.deepEqual(certificate, {
        id: certificate.id,
        host: 'localhost',
        cert: material.client.cert.trim().concat('\n'),
        ca: material.ca,
        created_at: '2026-11-29T10:00:00.000Z',
      })
      assert.deepEqual(
        json(await t.call({ method: 'GET', url: `/v1/client-certificates/${certificate.id}` })),
        certificate,
      )
      assert.deepEqual(json(await t.call({ method: 'GET', url: '/v1/client-certificates' })), [certificate])
      // Sealed at rest: the row holds neither the key nor the passphrase in the clear.
      const row = await t.store.db.selectFrom('client_certificates').selectAll().executeTakeFirstOrThrow()
      assert.doesNotMatch(row.secrets, /PRIVATE KEY|battery/)
      assert.match(JSON.parse(row.secrets).sealedKey, /^v2:/)
      // Key rotation and reset re-seal what rawSealedValues reads: the key and passphrase are among them.
      const sealed = (await rawSealedValues(t.store.db)).map((value) => t.ctx.secretBox.decrypt(value))
      assert.deepEqual(sealed.sort(), [material.client.key, material.client.passphrase].sort())
      const removed = await t.call({ method: 'DELETE', url: `/v1/client-certificates/${certificate.id}` })
      assert.equal(removed.statusCode, 204)
      const gone = await t.call({ method: 'GET', url: `/v1/client-certificates/${certificate.id}` })
      assert.equal(gone.statusCode, 404)
      assert.equal(json(gone).message, `Client certificate ${certificate.id} not found`)
    })

    test('a key inside cert is taken out of it, so it is never answered', async () => {
      const res = await create({
        host: 'localhost',
        cert: `${material.client.cert}${material.client.key}`,
        passphrase: material.client.passphrase,
      })
      assert.equal(res.statusCode, 201, res.body)
      assert.doesNotMatch(json(res).cert, /PRIVATE KEY/)
      const opened = await certificateForHost(t.ctx, t.owner.accountId, 'localhost')
      assert.match(opened?.key ?? '', /ENCRYPTED PRIVATE KEY/)
      await clean()
    })

    test('what TLS can’t use is a 400 saying why, and nothing is stored', async () => {
      const cases: [object, RegExp][] = [
        [stored({ passphrase: 'wrong' }), /^The passphrase doesn't open the key: /],
        [stored({ passphrase: null }), /^The passphrase doesn't open the key \(none was given\)/],
        [stored({ key: material.server.key, passphrase: null }), /can't be used together.*mismatch/i],
        [stored({ cert: 'not a certificate' }), /can't be used together/],
        [{ host: 'localhost', cert: material.client.cert }, /key is required/],
        [stored({ host: 'bad host/' }), /host/],
        [stored({ extra: 1 }), /extra/],
      ]
      for (const [payload, message] of cases) {
        const res = await create(payload)
        assert.equal(res.statusCode, 400, res.body)
        assert.match(json(res).message, message)
      }
      // The field it names, for a form to show the message beside it.
      const wrong = json(await create(stored({ passphrase: 'wrong' })))
      assert.deepEqual(
        wrong.attributes.errors.map((entry: { path: string; message: string }) => entry.path),
        ['body.passphrase'],
      )
      assert.match(wrong.attributes.errors[0].message, /^doesn't open the key: /)
      assert.deepEqual(json(await t.call({ method: 'GET', url: '/v1/client-certificates' })), [])
    })

    test('an exact host wins over a glob; among equals the newest wins', async () => {
      const ids: Record<string, string> = {}
      for (const host of ['api.acme.com', '*.acme.com', 'API.ACME.COM', '*.acme.com']) {
        nowMs += 1000
        ids[host.toLowerCase()] = json(await create(stored({ host }))).id
      }
      const chosenHost = async (hostname: string) =>
        (await certificateForHost(t.ctx, t.owner.accountId, hostname))?.host ?? null
      assert.equal(await chosenHost('api.acme.com'), 'api.acme.com')
      assert.equal(await chosenHost('www.acme.com'), '*.acme.com')
      assert.equal(await chosenHost('acme.com'), null)
      const opened = await certificateForHost(t.ctx, t.owner.accountId, 'api.acme.com')
      assert.equal(opened?.passphrase, material.client.passphrase)
      assert.equal(opened?.key, material.client.key)
      await clean()
    })

    test('another account’s certificate is not found and not used', async () => {
      const certificate = json(await create(stored()))
      const stranger = await ownerOfAnotherAccount(t)
      const res = await t.call({
        method: 'GET',
        url: `/v1/client-certificates/${certificate.id}`,
        as: stranger,
      })
      assert.equal(res.statusCode, 404)
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/client-certificates/${certificate.id}`, as: stranger }))
          .statusCode,
        404,
      )
      assert.equal(await certificateForHost(t.ctx, stranger.accountId, 'localhost'), null)
      await clean()
    })

    const createApiCheck = async (extra: object) => {
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: {
          name: 'mtls api',
          doubleCheck: false,
          request: {
            method: 'GET',
            url: `https://localhost:${port}/who`,
            assertions: [
              { source: 'JSON_BODY', property: '$.client', comparison: 'EQUALS', target: 'svc mtls client' },
            ],
          },
          ...extra,
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      return json(created).id as string
    }

    test('an API check to the certificate’s host presents it when it runs in this process', async () => {
      const checkId = await createApiCheck({ locations: ['local'] })
      const runAndRead = async () => {
        nowMs = await latestDueMs(t, [checkId])
        await createScheduler(t.ctx, { locations: ['local'], concurrency: 10 }).runDue()
        const [latest] = json(await t.call({ method: 'GET', url: `/v1/check-results/${checkId}?limit=1` }))
        return latest
      }
      const without = await runAndRead()
      assert.equal(without.hasFailures, true, 'no certificate: the server refuses the handshake')
      await create(stored())
      const withCertificate = await runAndRead()
      assert.equal(
        withCertificate.hasFailures,
        false,
        JSON.stringify(withCertificate.apiCheckResult?.response),
      )
      assert.equal(withCertificate.apiCheckResult.response.status, 200)
      assert.equal(JSON.parse(withCertificate.apiCheckResult.response.body).client, 'svc mtls client')
      await t.call({ method: 'DELETE', url: `/v1/checks/${checkId}` })
      await clean()
    })

    test('an agent’s job carries the certificate, and running it as the agent does presents it', async () => {
      const { key: _key, rawKey } = await privateLocationWithKey(t, 'mtls-office')
      const checkId = await createApiCheck({ locations: [], privateLocations: ['mtls-office'] })
      await create(stored())
      nowMs = await latestDueMs(t, [checkId])
      const poll = await asAgent(t, rawKey, randomUUID(), {
        method: 'GET',
        url: '/agent/v1/jobs?waitSeconds=0',
      })
      const [job] = json(poll) as AgentJob[]
      assert.equal(job?.checkId, checkId)
      const runnable = job?.job as { checkType: 'API'; definition: HttpJob }
      assert.equal(runnable.definition.clientCertificate?.key, material.client.key)
      const outcome = await runJob(job?.job as RunnerJob, { now: () => new Date() })
      assert.equal(outcome.verdict.hasFailures, false, JSON.stringify(outcome.verdict.error))
      await clean()
    })
  })
}
