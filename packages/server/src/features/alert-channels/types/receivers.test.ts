import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { after, before, beforeEach, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import {
  IncidentioAlertChannel,
  MSTeamsAlertChannel,
  OpsgenieAlertChannel,
  PagerdutyAlertChannel,
  Project,
  Session,
  SlackAppAlertChannel,
  TelegramAlertChannel,
} from 'checkly/constructs'
import { createTestApp, json, type TestApp } from '../../../testing/test-app.ts'
import { createDispatcher } from '../../alerting/dispatcher.ts'
import { storeResult } from '../../alerting/testing.ts'

interface Received {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** A local stand-in for PagerDuty, Opsgenie, Slack, Teams, Telegram and the rest: it answers what it is told. */
async function startReceiver() {
  const received: Received[] = []
  const state = { status: 202, body: '{"status":"success"}' }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      response.statusCode = state.status
      response.setHeader('content-type', 'application/json')
      response.end(state.body)
    })
  })
  const { url } = await listenOnLoopback(server)
  return {
    url,
    received,
    answer(status: number, body: unknown) {
      state.status = status
      state.body = typeof body === 'string' ? body : JSON.stringify(body)
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
}

/** The bodies the hosted product's CLI sends for its channel constructs (its deploy synthesizes them so). */
function hostedPayloads(receiverUrl: string): { type: string; config: Record<string, unknown> }[] {
  Session.project = new Project('hosted-channels', { name: 'Hosted channels' })
  const constructs = [
    new PagerdutyAlertChannel('pd', { account: 'acme', serviceName: 'Shop', serviceKey: 'pd-key' }),
    new OpsgenieAlertChannel('og', { name: 'Ops', apiKey: 'og-key', region: 'EU', priority: 'P1' }),
    new SlackAppAlertChannel('sa', { slackChannels: ['#alerts'] }),
    new MSTeamsAlertChannel('ms', { name: 'Teams', url: `${receiverUrl}/teams` }),
    new TelegramAlertChannel('tg', { name: 'Telegram', chatId: '-10042', apiKey: '123:bot-key' }),
    new IncidentioAlertChannel('io', {
      name: 'incident.io',
      url: `${receiverUrl}/incidentio`,
      apiKey: 'io-key',
    }),
  ]
  Session.project = undefined
  // JSON drops the properties the constructs leave undefined, as the CLI's request does.
  return constructs.map((construct) => JSON.parse(JSON.stringify(construct.synthesize())))
}

const SAMPLE_CHECK = '00000000-0000-4000-8000-000000000000'
const SAMPLE_RESULT_LINK = `http://svc.test/v1/check-results/${SAMPLE_CHECK}/00000000-0000-4000-8000-000000000001`

for (const engine of testEngines()) {
  describe(`the hosted product's channel types on ${engine.engine}`, () => {
    let t: TestApp
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    const nowMs = Date.parse('2026-06-01T08:00:00.000Z')
    before(async () => {
      receiver = await startReceiver()
      t = await createTestApp(engine, {
        clock: { now: () => new Date(nowMs) },
        alerting: {
          pagerDutyUrl: `${receiver.url}/pagerduty`,
          opsgenieUrl: `${receiver.url}/opsgenie`,
          slackApp: { botToken: 'xoxb-test-token', apiUrl: `${receiver.url}/slack/api` },
        },
      })
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })
    beforeEach(() => {
      receiver.received.length = 0
      receiver.answer(202, { status: 'success' })
    })

    async function channel(type: string, config: object) {
      const res = await t.call({ method: 'POST', url: '/v1/alert-channels', payload: { type, config } })
      assert.equal(res.statusCode, 201, res.body)
      return json(res) as { id: number; config: Record<string, unknown> }
    }

    async function sendTest(id: number) {
      const res = await t.call({ method: 'POST', url: `/v1/alert-channels/${id}/test` })
      assert.ok(res.statusCode < 300, res.body)
      return json(res) as {
        deliveryStatus: string
        lastResponse: { error: string | null; body: string | null }
      }
    }

    /** A check subscribed to `id` that fails, then recovers: the receiver gets both alerts. */
    async function failThenRecover(id: number) {
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/api?autoAssignAlerts=false',
        payload: {
          name: 'Checkout',
          activated: false,
          request: { url: 'https://shop.example.com/' },
          alertChannelSubscriptions: [{ alertChannelId: id, activated: true }],
        },
      })
      const subject = { id: json(created).id as string, accountId: t.owner.accountId }
      const node = createDispatcher(t.ctx)
      await storeResult(t.ctx, subject, { status: 'failing' })
      await node.runDue()
      await storeResult(t.ctx, subject, { status: 'passing' })
      await node.runDue()
      return subject.id
    }

    test('PAGERDUTY triggers an Events API v2 incident per check and resolves it on recovery', async () => {
      const key = 'R0UT1NGKEY0123456789abcdefabcdef'
      const created = await channel('PAGERDUTY', { account: 'acme', serviceName: 'Shop', serviceKey: key })
      assert.deepEqual(created.config, { account: 'acme', serviceName: 'Shop', serviceKey: '***masked***' })
      const checkId = await failThenRecover(created.id)
      assert.equal(receiver.received.length, 2)
      const [trigger, resolve] = receiver.received
      assert.equal(trigger?.url, '/pagerduty/v2/enqueue')
      assert.equal(trigger?.headers['content-type'], 'application/json')
      const event = JSON.parse(trigger?.body ?? '{}')
      assert.equal(event.routing_key, key)
      assert.equal(event.event_action, 'trigger')
      assert.equal(event.dedup_key, `svc-${checkId}`)
      assert.equal(event.payload.summary, 'Checkout has failed')
      assert.equal(event.payload.severity, 'critical')
      assert.equal(event.payload.source, 'local')
      assert.equal(event.payload.component, 'Checkout')
      assert.equal(event.payload.class, 'API')
      assert.equal(event.payload.timestamp, '2026-06-01T08:00:00.000Z')
      assert.match(event.links[0].href, new RegExp(`^http://svc\\.test/v1/check-results/${checkId}/`))
      assert.deepEqual(JSON.parse(resolve?.body ?? '{}'), {
        routing_key: key,
        event_action: 'resolve',
        dedup_key: `svc-${checkId}`,
      })
    })

    test('PAGERDUTY: the masked key keeps the stored one; a refusal reads as PagerDuty words it, key scrubbed', async () => {
      const key = 'K3Y0123456789abcdefabcdef0123456'
      const created = await channel('PAGERDUTY', { serviceKey: key })
      const updated = await t.call({
        method: 'PUT',
        url: `/v1/alert-channels/${created.id}`,
        payload: { type: 'PAGERDUTY', config: { serviceName: 'Renamed', serviceKey: '***masked***' } },
      })
      assert.equal(updated.statusCode, 200, updated.body)
      receiver.answer(400, {
        status: 'invalid event',
        message: 'Event object is invalid',
        errors: [`Routing key ${key} is not known`],
      })
      const answer = await sendTest(created.id)
      assert.equal(JSON.parse(receiver.received[0]?.body ?? '{}').routing_key, key)
      assert.equal(answer.deliveryStatus, 'FAILED')
      assert.equal(
        answer.lastResponse.error,
        'HTTP 400: Event object is invalid: Routing key [REDACTED] is not known',
      )
      assert.ok(!answer.lastResponse.body?.includes(key))
      const masked = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: { type: 'PAGERDUTY', config: { serviceKey: '***masked***' } },
      })
      assert.equal(masked.statusCode, 400)
      assert.match(json(masked).message, /body\.config\.serviceKey must be the key itself/)
    })

    test('OPSGENIE creates an alert with GenieKey auth and closes it by alias on recovery', async () => {
      const created = await channel('OPSGENIE', {
        name: 'Ops',
        apiKey: 'genie-key-1',
        region: 'EU',
        priority: 'P2',
      })
      assert.deepEqual(created.config, { name: 'Ops', apiKey: '***masked***', region: 'EU', priority: 'P2' })
      const checkId = await failThenRecover(created.id)
      const [open, close] = receiver.received
      assert.equal(open?.url, '/opsgenie/v2/alerts')
      assert.equal(open?.headers.authorization, 'GenieKey genie-key-1')
      const alert = JSON.parse(open?.body ?? '{}')
      assert.equal(alert.message, 'Checkout has failed')
      assert.equal(alert.alias, `svc-${checkId}`)
      assert.equal(alert.priority, 'P2')
      assert.equal(alert.source, 'svc')
      assert.equal(alert.entity, 'Checkout')
      assert.match(alert.description, /^Check: Checkout \(API\)\n/)
      assert.equal(close?.url, `/opsgenie/v2/alerts/svc-${checkId}/close?identifierType=alias`)
      assert.equal(close?.headers.authorization, 'GenieKey genie-key-1')
      assert.deepEqual(JSON.parse(close?.body ?? '{}'), { source: 'svc', note: 'Checkout has recovered' })
    })

    test('OPSGENIE: a refused key is a clear error in the Send test answer', async () => {
      const created = await channel('OPSGENIE', { name: 'Ops', apiKey: 'bad', region: 'US', priority: 'P3' })
      receiver.answer(422, { message: 'Key format is not valid!', took: 0.001, requestId: 'r1' })
      const answer = await sendTest(created.id)
      assert.equal(answer.deliveryStatus, 'FAILED')
      assert.equal(answer.lastResponse.error, 'HTTP 422: Key format is not valid!')
      const bad = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: { type: 'OPSGENIE', config: { name: 'Ops', apiKey: 'k', region: 'MARS', priority: 'P3' } },
      })
      assert.equal(bad.statusCode, 400)
      assert.match(json(bad).message, /body\.config\.region/)
    })

    test('SLACK_APP posts to each channel with the bot token; a 200 with ok:false is a refusal', async () => {
      const created = await channel('SLACK_APP', { slackChannels: ['#alerts', 'C0123'] })
      receiver.answer(200, { ok: true, ts: '1.2' })
      assert.equal((await sendTest(created.id)).deliveryStatus, 'DELIVERED')
      assert.equal(receiver.received.length, 2)
      for (const [index, name] of ['#alerts', 'C0123'].entries()) {
        const post = receiver.received[index]
        assert.equal(post?.url, '/slack/api/chat.postMessage')
        assert.equal(post?.headers.authorization, 'Bearer xoxb-test-token')
        const message = JSON.parse(post?.body ?? '{}')
        assert.equal(message.channel, name)
        assert.equal(message.text.split('\n')[0], ':red_circle: *Sample check has failed (test alert)*')
      }
      receiver.answer(200, { ok: false, error: 'channel_not_found' })
      const refused = await sendTest(created.id)
      assert.equal(refused.deliveryStatus, 'FAILED')
      assert.equal(refused.lastResponse.error, '#alerts: Slack refused the message: channel_not_found')
      receiver.answer(200, { ok: false, error: 'invalid_auth', sent: 'Bearer xoxb-test-token' })
      const unauthorized = await sendTest(created.id)
      assert.equal(unauthorized.lastResponse.error, '#alerts: Slack refused the message: invalid_auth')
      assert.ok(!unauthorized.lastResponse.body?.includes('xoxb-test-token'))
    })

    test('SLACK_APP without a bot token fails at once and says what to set', async () => {
      const app = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      try {
        const res = await app.call({
          method: 'POST',
          url: '/v1/alert-channels',
          payload: { type: 'SLACK_APP', config: { slackChannels: ['#alerts'] } },
        })
        const answer = json(
          await app.call({ method: 'POST', url: `/v1/alert-channels/${json(res).id}/test` }),
        )
        assert.equal(answer.deliveryStatus, 'FAILED')
        assert.equal(answer.lastResponse.error, 'the Slack app is not configured: set SVC_SLACK_BOT_TOKEN')
      } finally {
        await app.close()
      }
    })

    async function webhook(webhookType: string, extra: object = {}) {
      return channel('WEBHOOK', { name: webhookType, url: `${receiver.url}/hook`, webhookType, ...extra })
    }

    test('WEBHOOK_MSTEAMS with no template sends an Adaptive Card message', async () => {
      const created = await webhook('WEBHOOK_MSTEAMS')
      receiver.answer(202, '')
      assert.equal((await sendTest(created.id)).deliveryStatus, 'DELIVERED')
      const [post] = receiver.received
      assert.equal(post?.headers['content-type'], 'application/json')
      const message = JSON.parse(post?.body ?? '{}')
      assert.equal(message.type, 'message')
      const [attachment] = message.attachments
      assert.equal(attachment.contentType, 'application/vnd.microsoft.card.adaptive')
      assert.equal(attachment.content.type, 'AdaptiveCard')
      assert.equal(attachment.content.body[0].text, 'Sample check has failed (test alert)')
      assert.deepEqual(attachment.content.body[1].facts[0], { title: 'Check', value: 'Sample check (API)' })
      assert.deepEqual(attachment.content.actions, [
        { type: 'Action.OpenUrl', title: 'View the result', url: SAMPLE_RESULT_LINK },
      ])
    })

    test('WEBHOOK_TELEGRAM sends sendMessage as a form: the default text, or the hosted CLI template', async () => {
      const created = await webhook('WEBHOOK_TELEGRAM', {
        queryParameters: [{ key: 'chat_id', value: '-100123' }],
      })
      receiver.answer(200, { ok: true })
      assert.equal((await sendTest(created.id)).deliveryStatus, 'DELIVERED')
      const [post] = receiver.received
      assert.equal(post?.url, '/hook?chat_id=-100123')
      assert.equal(post?.headers['content-type'], 'application/x-www-form-urlencoded')
      const form = new URLSearchParams(post?.body)
      assert.equal(form.get('parse_mode'), 'HTML')
      assert.equal(form.get('text')?.split('\n')[0], '<b>Sample check has failed (test alert)</b>')
      assert.ok(form.get('text')?.endsWith(`<a href="${SAMPLE_RESULT_LINK}">View the result</a>`))

      // What the hosted CLI's TelegramAlertChannel sends: chat_id in the template, no headers.
      const hosted = await webhook('WEBHOOK_TELEGRAM', {
        template: 'chat_id=42&parse_mode=HTML&text=<b>{{ALERT_TITLE}}</b> at {{RUN_LOCATION}}',
      })
      receiver.received.length = 0
      assert.equal((await sendTest(hosted.id)).deliveryStatus, 'DELIVERED')
      const sent = new URLSearchParams(receiver.received[0]?.body)
      assert.equal(sent.get('chat_id'), '42')
      assert.equal(sent.get('text'), '<b>Sample check has failed (test alert)</b> at local')

      receiver.answer(400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' })
      const refused = await sendTest(hosted.id)
      assert.equal(refused.deliveryStatus, 'FAILED')
      assert.equal(refused.lastResponse.error, 'HTTP 400: Bad Request: chat not found')

      const noChat = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: {
          type: 'WEBHOOK',
          config: { name: 't', url: `${receiver.url}/hook`, webhookType: 'WEBHOOK_TELEGRAM' },
        },
      })
      assert.equal(noChat.statusCode, 400)
      assert.match(json(noChat).message, /body\.config\.queryParameters must hold chat_id/)
    })

    test('WEBHOOK_INCIDENTIO fires an alert per check with its token and resolves it on recovery', async () => {
      const created = await webhook('WEBHOOK_INCIDENTIO', {
        headers: [{ key: 'Authorization', value: 'Bearer inc-token', locked: true }],
      })
      const checkId = await failThenRecover(created.id)
      const [firing, resolved] = receiver.received
      assert.equal(firing?.headers.authorization, 'Bearer inc-token')
      const alert = JSON.parse(firing?.body ?? '{}')
      assert.equal(alert.title, 'Checkout has failed')
      assert.equal(alert.status, 'firing')
      assert.equal(alert.deduplication_key, `svc-${checkId}`)
      assert.equal(alert.metadata.checkId, checkId)
      assert.match(alert.description, /^Check: Checkout \(API\)/)
      const recovery = JSON.parse(resolved?.body ?? '{}')
      assert.equal(recovery.status, 'resolved')
      assert.equal(recovery.deduplication_key, `svc-${checkId}`)

      receiver.answer(422, {
        type: 'validation_error',
        status: 422,
        errors: [{ message: 'title is required' }],
      })
      const refused = await sendTest(created.id)
      assert.equal(refused.lastResponse.error, 'HTTP 422: title is required')
    })

    test('WEBHOOK_DISCORD and WEBHOOK_GOOGLE_CHAT send the message body each expects', async () => {
      const discord = await webhook('WEBHOOK_DISCORD')
      receiver.answer(204, '')
      assert.equal((await sendTest(discord.id)).deliveryStatus, 'DELIVERED')
      const message = JSON.parse(receiver.received[0]?.body ?? '{}')
      assert.equal(message.username, 'svc')
      assert.deepEqual(message.allowed_mentions, { parse: [] })
      assert.equal(message.content.split('\n')[0], '**Sample check has failed (test alert)**')
      assert.ok(message.content.endsWith(`View the result: <${SAMPLE_RESULT_LINK}>`))
      receiver.answer(400, { message: 'Cannot send an empty message', code: 50006 })
      assert.equal((await sendTest(discord.id)).lastResponse.error, 'HTTP 400: Cannot send an empty message')

      const chat = await webhook('WEBHOOK_GOOGLE_CHAT')
      receiver.received.length = 0
      receiver.answer(200, { name: 'spaces/x/messages/y' })
      assert.equal((await sendTest(chat.id)).deliveryStatus, 'DELIVERED')
      const [post] = receiver.received
      assert.equal(post?.headers['content-type'], 'application/json; charset=UTF-8')
      const text = JSON.parse(post?.body ?? '{}').text as string
      assert.equal(text.split('\n')[0], '*Sample check has failed (test alert)*')
      assert.ok(text.endsWith(`<${SAMPLE_RESULT_LINK}|View the result>`))
      receiver.answer(400, {
        error: { code: 400, message: 'Invalid JSON payload', status: 'INVALID_ARGUMENT' },
      })
      assert.equal((await sendTest(chat.id)).lastResponse.error, 'HTTP 400: Invalid JSON payload')
    })

    test('a plain webhook refused keeps its record as before: HTTP <status>', async () => {
      const created = await channel('WEBHOOK', { name: 'plain', url: `${receiver.url}/hook` })
      receiver.answer(400, { message: 'nope' })
      assert.equal((await sendTest(created.id)).lastResponse.error, 'HTTP 400')
    })

    test("the hosted CLI's channel constructs are taken as they are, and their templates deliver", async () => {
      receiver.answer(200, { ok: true })
      const delivered: Record<string, Received> = {}
      for (const payload of hostedPayloads(receiver.url)) {
        const kind = String(payload.config.webhookType ?? payload.type)
        // Telegram's URL is fixed in the construct: the local receiver stands in for api.telegram.org.
        if (kind === 'WEBHOOK_TELEGRAM') payload.config.url = `${receiver.url}/bot123:bot-key/sendMessage`
        const res = await t.call({ method: 'POST', url: '/v1/alert-channels', payload })
        assert.equal(res.statusCode, 201, `${kind}: ${res.body}`)
        receiver.received.length = 0
        const answer = await sendTest(json(res).id)
        assert.equal(answer.deliveryStatus, 'DELIVERED', `${kind}: ${JSON.stringify(answer.lastResponse)}`)
        delivered[kind] = receiver.received[0] as Received
      }
      assert.equal(JSON.parse(delivered.PAGERDUTY?.body ?? '{}').routing_key, 'pd-key')
      assert.equal(delivered.OPSGENIE?.headers.authorization, 'GenieKey og-key')
      assert.equal(JSON.parse(delivered.SLACK_APP?.body ?? '{}').channel, '#alerts')
      const card = JSON.parse(delivered.WEBHOOK_MSTEAMS?.body ?? '{}')
      assert.equal(card.attachments[0].content.body[0].items[0].text, 'Sample check has failed (test alert)')
      const telegram = new URLSearchParams(delivered.WEBHOOK_TELEGRAM?.body)
      assert.equal(delivered.WEBHOOK_TELEGRAM?.headers['content-type'], 'application/x-www-form-urlencoded')
      assert.equal(telegram.get('chat_id'), '-10042')
      assert.match(
        telegram.get('text') ?? '',
        /^<b>Sample check has failed \(test alert\)<\/b> at local \(123ms\)/,
      )
      const incident = JSON.parse(delivered.WEBHOOK_INCIDENTIO?.body ?? '{}')
      assert.equal(delivered.WEBHOOK_INCIDENTIO?.headers.authorization, 'Bearer io-key')
      assert.equal(incident.status, 'firing')
      assert.equal(incident.deduplication_key, SAMPLE_CHECK)
    })

    test('CALL is not served: a 400 naming the type', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v1/alert-channels',
        payload: { type: 'CALL', config: { number: '+15550001111', name: 'On call' } },
      })
      assert.equal(res.statusCode, 400)
      assert.match(
        json(res).message,
        /^body.type must be one of WEBHOOK, EMAIL, SLACK, SMS, SLACK_APP, PAGERDUTY, OPSGENIE$/,
      )
    })
  })
}
