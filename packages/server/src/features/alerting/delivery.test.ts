import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { SMTPServer } from 'smtp-server'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { createDispatcher, RETRY_DELAY_MS } from './dispatcher.ts'
import { startReceiver, storeResult } from './testing.ts'

interface Mail {
  from: string
  to: string[]
  raw: string
}

/** A real SMTP server on loopback that keeps what it receives; it can refuse the next N messages. */
async function startSmtp() {
  const mails: Mail[] = []
  const state = { refuseNext: 0, refuseCode: 451 }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        if (state.refuseNext > 0) {
          state.refuseNext--
          const permanent = state.refuseCode >= 500
          const error = new Error(permanent ? 'no such mailbox' : 'mailbox busy') as Error & {
            responseCode: number
          }
          error.responseCode = state.refuseCode
          return callback(error)
        }
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const port = (server.server.address() as AddressInfo).port
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** Refuses the next `count` messages with `code` (451: try later; 5xx: never). */
    refuseNext(count: number, code = 451) {
      state.refuseNext = count
      state.refuseCode = code
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}

/** The decoded body parts of a MIME message (quoted-printable or base64), by content type. */
function partsOf(raw: string): Record<string, string> {
  const parts: Record<string, string> = {}
  for (const chunk of raw.split(/\r?\n--[^\r\n]+/)) {
    const type = chunk.match(/Content-Type: ([\w/]+)/i)?.[1]?.toLowerCase()
    if (!type?.startsWith('text/')) continue
    const [head = '', ...rest] = chunk.split(/\r?\n\r?\n/)
    let body = rest.join('\n\n')
    if (/Content-Transfer-Encoding: quoted-printable/i.test(head)) {
      body = Buffer.from(
        body
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
        'latin1',
      ).toString('utf8')
    } else if (/Content-Transfer-Encoding: base64/i.test(head)) {
      body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
    }
    parts[type] = body.replace(/\r\n/g, '\n').trim()
  }
  return parts
}

for (const engine of testEngines()) {
  describe(`email, Slack and SMS delivery on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-06-01T08:00:00.000Z')
    let smtp: Awaited<ReturnType<typeof startSmtp>>
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    before(async () => {
      smtp = await startSmtp()
      receiver = await startReceiver()
      t = await createTestApp(engine, {
        clock: { now: () => new Date(nowMs) },
        alerting: {
          smtp: { url: smtp.url, from: 'svc alerts <alerts@svc.test>' },
          sms: {
            url: `${receiver.url}/sms?to={{NUMBER}}`,
            method: 'POST',
            headers: {
              'Content-Type': 'application/x-www-form-urlencoded',
              Authorization: 'Basic dGVzdDp0ZXN0',
            },
            body: 'To={{NUMBER}}&Body={{MESSAGE}}',
          },
        },
      })
    })
    after(async () => {
      await t.close()
      await smtp.close()
      await receiver.close()
    })
    beforeEach(() => {
      receiver.received.length = 0
      smtp.mails.length = 0
    })

    async function channel(type: string, config: object) {
      const res = await t.call({ method: 'POST', url: '/v1/alert-channels', payload: { type, config } })
      assert.equal(res.statusCode, 201, res.body)
      return json(res).id as number
    }

    async function check(channelIds: number[]) {
      const res = await t.call({
        method: 'POST',
        url: '/v1/checks/api?autoAssignAlerts=false',
        payload: {
          name: 'Checkout <EU> & co',
          activated: false,
          request: { url: 'https://shop.example.com/' },
          alertChannelSubscriptions: channelIds.map((id) => ({ alertChannelId: id, activated: true })),
        },
      })
      return { id: json(res).id as string, accountId: t.owner.accountId }
    }

    test('mail refused for good (a 5xx reply) fails at once; it is not sent 5 more times', async () => {
      const id = await channel('EMAIL', { address: 'nobody@example.com' })
      const subject = await check([id])
      const node = createDispatcher(t.ctx)
      smtp.refuseNext(10, 550)
      await storeResult(t.ctx, subject, { status: 'failing' })
      await node.runDue()
      nowMs += RETRY_DELAY_MS
      await node.runDue()
      const [failed] = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${subject.id}` }),
      )
      assert.equal(failed.deliveryStatus, 'FAILED')
      assert.equal(failed.attempts, 1)
      assert.equal(failed.nextAttemptAt, null)
      assert.match(failed.lastResponse.error, /550/)
      assert.equal(smtp.mails.length, 0)
      smtp.refuseNext(0)
    })

    test('EMAIL goes over SMTP with a plain-text and an HTML body; refused mail is retried', async () => {
      const id = await channel('EMAIL', { address: 'oncall@example.com' })
      const subject = await check([id])
      const node = createDispatcher(t.ctx)
      smtp.refuseNext(1)
      const result = await storeResult(t.ctx, subject, { status: 'failing' })
      await node.runDue()
      assert.equal(smtp.mails.length, 0)
      const [pending] = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${subject.id}` }),
      )
      assert.equal(pending.deliveryStatus, 'PENDING')
      assert.match(pending.lastResponse.error, /451/)
      nowMs += RETRY_DELAY_MS
      await node.runDue()
      assert.equal(smtp.mails.length, 1)
      const [mail] = smtp.mails
      assert.ok(mail)
      assert.deepEqual(mail.to, ['oncall@example.com'])
      assert.equal(mail.from, 'alerts@svc.test')
      assert.match(mail.raw, /^Subject: Checkout <EU> & co has failed\r?$/m)
      const parts = partsOf(mail.raw)
      assert.ok(
        parts['text/plain']?.startsWith('Checkout <EU> & co has failed\n\nCheck: Checkout <EU> & co (API)'),
      )
      assert.ok(parts['text/plain']?.includes('Error: Status code 503 is not below 400'))
      assert.ok(
        parts['text/plain']?.includes(`Result: http://svc.test/v1/check-results/${subject.id}/${result.id}`),
      )
      assert.ok(parts['text/html']?.includes('<h2>Checkout &lt;EU&gt; &amp; co has failed</h2>'))
      assert.ok(
        parts['text/html']?.includes(
          `<a href="http://svc.test/v1/check-results/${subject.id}/${result.id}">`,
        ),
      )
      const [delivered] = json(
        await t.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${subject.id}` }),
      )
      assert.equal(delivered.deliveryStatus, 'DELIVERED')
      assert.equal(delivered.attempts, 2)
    })

    test('SLACK posts a readable message to the incoming webhook', async () => {
      const id = await channel('SLACK', { url: `${receiver.url}/slack/T000/B000`, channel: '#alerts' })
      const subject = await check([id])
      await storeResult(t.ctx, subject, { status: 'failing' })
      await createDispatcher(t.ctx).runDue()
      assert.equal(receiver.received.length, 1)
      const [post] = receiver.received
      assert.equal(post?.url, '/slack/T000/B000')
      const message = JSON.parse(post?.body ?? '{}')
      assert.equal(message.channel, '#alerts')
      const lines = message.text.split('\n')
      assert.equal(lines[0], ':red_circle: *Checkout &lt;EU&gt; &amp; co has failed*')
      assert.ok(lines.includes('Error: Status code 503 is not below 400'))
      assert.match(lines.at(-1), /^<http:\/\/svc\.test\/v1\/check-results\/.+\|View the result>$/)
    })

    test('SMS goes through the configured provider template', async () => {
      const id = await channel('SMS', { number: '+15550001111', name: 'On call' })
      const subject = await check([id])
      await storeResult(t.ctx, subject, { status: 'failing' })
      await createDispatcher(t.ctx).runDue()
      assert.equal(receiver.received.length, 1)
      const [sms] = receiver.received
      assert.equal(sms?.url, '/sms?to=%2B15550001111')
      assert.equal(sms?.headers.authorization, 'Basic dGVzdDp0ZXN0')
      const form = new URLSearchParams(sms?.body)
      assert.equal(form.get('To'), '+15550001111')
      assert.equal(form.get('Body'), 'Checkout <EU> & co has failed (local)')
    })

    test('an SMS provider URL with credentials (https://SID:TOKEN@host/...) authenticates with Basic', async () => {
      const app = await createTestApp(engine, {
        clock: { now: () => new Date(nowMs) },
        alerting: {
          sms: {
            url: `${receiver.url.replace('http://', 'http://AC123:s%40cret@')}/sms`,
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: 'To={{NUMBER}}&Body={{MESSAGE}}',
          },
        },
      })
      try {
        const created = json(
          await app.call({
            method: 'POST',
            url: '/v1/alert-channels',
            payload: { type: 'SMS', config: { number: '+15550001111', name: 'On call' } },
          }),
        )
        const res = json(await app.call({ method: 'POST', url: `/v1/alert-channels/${created.id}/test` }))
        assert.equal(res.deliveryStatus, 'DELIVERED', JSON.stringify(res.lastResponse))
        const [sms] = receiver.received
        assert.equal(sms?.url, '/sms')
        assert.equal(sms?.headers.authorization, `Basic ${Buffer.from('AC123:s@cret').toString('base64')}`)
      } finally {
        await app.close()
      }
    })

    test('an SMS provider header beyond Latin-1 goes as its UTF-8 bytes (it failed every SMS)', async () => {
      const app = await createTestApp(engine, {
        clock: { now: () => new Date(nowMs) },
        alerting: {
          sms: {
            url: `${receiver.url}/sms`,
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Sender': 'Zürich Ops ✓' },
            body: 'To={{NUMBER}}&Body={{MESSAGE}}',
          },
        },
      })
      try {
        const created = json(
          await app.call({
            method: 'POST',
            url: '/v1/alert-channels',
            payload: { type: 'SMS', config: { number: '+15550001111', name: 'On call' } },
          }),
        )
        const res = json(await app.call({ method: 'POST', url: `/v1/alert-channels/${created.id}/test` }))
        assert.equal(res.deliveryStatus, 'DELIVERED', JSON.stringify(res.lastResponse))
        // Header bytes are UTF-8; Node hands them over as Latin-1 text.
        const sent = receiver.received[0]?.headers['x-sender']
        assert.equal(Buffer.from(String(sent), 'latin1').toString('utf8'), 'Zürich Ops ✓')
      } finally {
        await app.close()
      }
    })

    test('the status decides a delivery: a body that never ends or never stops is read only to 2 KiB', async (context) => {
      const served = { endless: false, huge: false }
      const server = createServer((request, response) => {
        request.resume()
        request.on('end', () => {
          response.writeHead(200, { 'content-type': 'text/plain' })
          if (request.url === '/endless') {
            response.write('accepted, still talking')
            return // never ends
          }
          // 64 MiB, unless the client goes away first.
          const chunk = Buffer.alloc(1 << 20, 'x')
          let sent = 0
          const pump = () => {
            while (sent < 64) {
              sent++
              if (!response.write(chunk)) return void response.once('drain', pump)
            }
            response.end(() => {
              served.huge = true
            })
          }
          pump()
        })
      })
      const { url: base } = await listenOnLoopback(server, context)
      const app = await createTestApp(engine, {
        clock: { now: () => new Date(nowMs) },
        alerting: { timeoutMs: 500 },
      })
      try {
        for (const path of ['/endless', '/huge']) {
          const created = json(
            await app.call({
              method: 'POST',
              url: '/v1/alert-channels',
              payload: { type: 'WEBHOOK', config: { name: path, url: `${base}${path}` } },
            }),
          )
          const res = json(await app.call({ method: 'POST', url: `/v1/alert-channels/${created.id}/test` }))
          assert.equal(res.deliveryStatus, 'DELIVERED', path)
          assert.equal(res.lastResponse.statusCode, 200)
          assert.equal(res.lastResponse.error, null)
          if (path === '/endless') assert.equal(res.lastResponse.body, 'accepted, still talking')
          else assert.equal(res.lastResponse.body, 'x'.repeat(2048))
        }
        assert.equal(served.huge, false, 'the 64 MiB body was not read to its end')
      } finally {
        await app.close()
      }
    })

    test('a receiver that never answers times out and is retried 20 s later; a 3xx is its answer, not followed', async (context) => {
      const state = { answer: false, requests: 0, followed: 0 }
      const server = createServer((request, response) => {
        request.resume()
        if (request.url === '/moved-here') state.followed++
        if (request.url === '/redirect') {
          response.writeHead(307, { location: '/moved-here' })
          response.end()
          return
        }
        state.requests++
        if (state.answer) response.end('ok') // else never answers
      })
      const { url: base } = await listenOnLoopback(server, context)
      // The silent attempt waits out this limit (any limit ends it); it is generous for the ones that answer.
      const app = await createTestApp(engine, {
        clock: { now: () => new Date(nowMs) },
        alerting: { timeoutMs: 2000 },
      })
      try {
        const created = json(
          await app.call({
            method: 'POST',
            url: '/v1/alert-channels',
            payload: { type: 'WEBHOOK', config: { name: 'silent', url: `${base}/hook` } },
          }),
        )
        const res = await app.call({
          method: 'POST',
          url: '/v1/checks/api?autoAssignAlerts=false',
          payload: {
            name: 'silent receiver',
            activated: false,
            request: { url: 'https://shop.example.com/' },
            alertChannelSubscriptions: [{ alertChannelId: created.id, activated: true }],
          },
        })
        const subject = { id: json(res).id as string, accountId: app.owner.accountId }
        const node = createDispatcher(app.ctx)
        await storeResult(app.ctx, subject, { status: 'failing' })
        await node.runDue()
        const list = async () =>
          json(await app.call({ method: 'GET', url: `/v1/alert-notifications?checkId=${subject.id}` }))
        const [pending] = await list()
        assert.equal(pending.deliveryStatus, 'PENDING')
        assert.equal(pending.attempts, 1)
        assert.deepEqual(
          { statusCode: pending.lastResponse.statusCode, error: pending.lastResponse.error },
          { statusCode: null, error: 'timed out' },
        )
        assert.equal(pending.nextAttemptAt, new Date(nowMs + RETRY_DELAY_MS).toISOString())
        state.answer = true
        nowMs += RETRY_DELAY_MS
        await node.runDue()
        const [delivered] = await list()
        assert.equal(delivered.deliveryStatus, 'DELIVERED')
        assert.equal(delivered.attempts, 2)
        assert.deepEqual(
          delivered.attemptLog.map((a: { error: string | null }) => a.error),
          ['timed out', null],
        )
        assert.equal(state.requests, 2)

        // Spec: only a status above 399 is retried. A redirect is recorded as the answer; following it
        // would send the signed body and locked headers to wherever the receiver points.
        const moved = json(
          await app.call({
            method: 'POST',
            url: '/v1/alert-channels',
            payload: { type: 'WEBHOOK', config: { name: 'moved', url: `${base}/redirect` } },
          }),
        )
        const sent = json(await app.call({ method: 'POST', url: `/v1/alert-channels/${moved.id}/test` }))
        assert.deepEqual([sent.deliveryStatus, sent.lastResponse.statusCode], ['DELIVERED', 307])
        assert.equal(state.followed, 0)
      } finally {
        await app.close()
      }
    })

    test('without SMTP or an SMS provider, deliveries fail saying what to configure', async () => {
      const bare = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      try {
        for (const [type, config, message] of [
          ['EMAIL', { address: 'a@example.com' }, 'email is not configured: set SVC_SMTP_URL'],
          ['SMS', { number: '+15550001111', name: 'x' }, 'SMS is not configured: set SVC_SMS_URL'],
        ] as const) {
          const created = json(
            await bare.call({ method: 'POST', url: '/v1/alert-channels', payload: { type, config } }),
          )
          const res = json(await bare.call({ method: 'POST', url: `/v1/alert-channels/${created.id}/test` }))
          assert.equal(res.deliveryStatus, 'FAILED')
          assert.equal(res.lastResponse.error, message)
        }
      } finally {
        await bare.close()
      }
    })
  })
}
