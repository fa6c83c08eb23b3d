import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { sql } from 'kysely'
import { createTransport } from 'nodemailer'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { startServerProcess } from '../../testing/server-process.ts'
import { type Received, startSmtp } from '../../testing/smtp-receiver.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { listenForWakeups } from '../../wakeups.ts'
import { listEmails } from './status-page-subscribers.repo.ts'
import { CONFIRMATIONS_PER_PAGE_PER_HOUR } from './status-page-subscribers.service.ts'
import { deliverDueSubscriberEmails, MAX_ATTEMPTS, startSubscriberMailDelivery } from './subscriber-mail.ts'

const FROM = 'Acme status <status@svc.test>'

for (const engine of testEngines()) {
  describe(`status page subscribers on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-22T12:00:00.000Z')
    let smtp: Awaited<ReturnType<typeof startSmtp>>
    let transport: ReturnType<typeof createTransport>
    before(async () => {
      smtp = await startSmtp()
      transport = createTransport(smtp.url)
      t = await createTestApp(engine, {
        clock: { now: () => new Date(nowMs) },
        // Every request comes from one address here; status-site-probing.test.ts tests the limit.
        limits: { statusForms: { max: 10_000, windowSeconds: 600 } },
      })
    })
    after(async () => {
      transport.close()
      await smtp.close()
      await t.close()
    })

    const deliver = () => deliverDueSubscriberEmails(t.ctx, transport, { owner: 'test', from: FROM })
    const subscribeJson = (slug: string, email: string) =>
      t.call({ method: 'POST', url: `/status/${slug}/subscribe`, as: null, payload: { email } })
    const subscribers = async (pageId: string) =>
      json(await t.call({ method: 'GET', url: `/v3/status-pages/${pageId}/subscribers` }))
    const linkIn = (body: string, path: string) => {
      const match = body.match(
        new RegExp(`http://svc\\.test(/status/_subscription/${path}\\?token=[A-Za-z0-9_-]+)`),
      )
      assert.ok(match, `a ${path} link in:\n${body}`)
      return match[1] as string
    }

    test('double opt-in, one email per update to confirmed subscribers, one-click unsubscribe', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'News', url: 'news', cards: [] },
        }),
      )
      const first = await subscribeJson('news', ' Ada@Example.com ')
      assert.equal(first.statusCode, 202)
      assert.match(json(first).message, /confirmation link/)
      assert.equal((await subscribeJson('news', 'bob@example.com')).statusCode, 202)
      assert.deepEqual(
        (await subscribers(page.id)).map((s: any) => [s.email, s.status, s.confirmedAt]),
        [
          ['ada@example.com', 'PENDING', null],
          ['bob@example.com', 'PENDING', null],
        ],
      )

      assert.deepEqual(await deliver(), { sent: 2, failed: 0 })
      await smtp.waitFor(2)
      const confirmation = smtp.received.find((m) => m.to[0] === 'ada@example.com') as Received
      assert.equal(confirmation.headers.subject, 'Confirm your subscription to News')
      assert.equal(confirmation.headers.from, FROM)
      const confirmPath = linkIn(confirmation.body, 'confirm')

      // Asking again soon sends no second confirmation; the answer doesn't tell.
      assert.equal((await subscribeJson('news', 'ada@example.com')).statusCode, 202)
      assert.deepEqual(await deliver(), { sent: 0, failed: 0 })

      const confirmed = await t.call({ method: 'GET', url: confirmPath, as: null })
      assert.equal(confirmed.statusCode, 200)
      assert.match(confirmed.body, /Subscription confirmed/)
      assert.equal(
        (await t.call({ method: 'GET', url: confirmPath, as: null })).statusCode,
        200,
        'the link can be opened twice',
      )
      const token = confirmPath.split('token=')[1]
      assert.equal(
        (await t.call({ method: 'GET', url: `/status/news/subscribe/confirm?token=${token}`, as: null }))
          .statusCode,
        200,
        'links of mails sent before links were slug-free still work',
      )
      assert.equal(
        (await t.call({ method: 'GET', url: '/status/news/subscribe/confirm?token=nope', as: null }))
          .statusCode,
        404,
      )
      const ada = (await subscribers(page.id)).find((s: any) => s.email === 'ada@example.com')
      assert.equal(ada.status, 'CONFIRMED')
      assert.equal(ada.confirmedAt, '2026-11-22T12:00:00.000Z')
      assert.equal((await subscribeJson('news', 'ada@example.com')).statusCode, 202)
      assert.deepEqual(
        await deliver(),
        { sent: 0, failed: 0 },
        'a confirmed address gets no new confirmation',
      )

      const incident = json(
        await t.call({
          method: 'POST',
          url: `/v3/status-pages/${page.id}/incidents`,
          payload: {
            name: 'Outage',
            incidentUpdates: [
              { description: 'The API answers 500.', status: 'INVESTIGATING', notifySubscribers: true },
            ],
          },
        }),
      )
      assert.deepEqual(await deliver(), { sent: 1, failed: 0 })
      await smtp.waitFor(3)
      const update = smtp.received[2] as Received
      assert.deepEqual(update.to, ['ada@example.com'], 'only the confirmed subscriber')
      assert.equal(update.headers.subject, '[News] Outage: Investigating')
      assert.match(update.body, /The API answers 500\./)
      assert.match(update.body, /Status page: http:\/\/svc\.test\/status\/news/)
      const unsubscribePath = linkIn(update.body, 'unsubscribe')
      assert.equal(update.headers['list-unsubscribe'], `<http://svc.test${unsubscribePath}>`)
      assert.equal(update.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click')

      // Once per update: no flag, no mail; editing a notified update sends nothing again.
      const quiet = json(
        await t.call({
          method: 'POST',
          url: `/v1/incidents/${incident.id}/updates`,
          payload: { description: 'Still on it', status: 'IDENTIFIED' },
        }),
      )
      const firstUpdate = incident.incidentUpdates[0]
      await t.call({
        method: 'PUT',
        url: `/v1/incidents/${incident.id}/updates/${firstUpdate.id}`,
        payload: {
          description: 'The API answers 500 (edited).',
          status: 'INVESTIGATING',
          notifySubscribers: true,
        },
      })
      assert.deepEqual(await deliver(), { sent: 0, failed: 0 })
      await t.call({
        method: 'PUT',
        url: `/v1/incidents/${incident.id}/updates/${quiet.id}`,
        payload: { description: 'Still on it', status: 'IDENTIFIED', notifySubscribers: true },
      })
      assert.deepEqual(await deliver(), { sent: 1, failed: 0 }, 'turning the flag on later sends it then')
      await smtp.waitFor(4)
      assert.equal((smtp.received[3] as Received).headers.subject, '[News] Outage: Identified')

      // A GET (the link opened, or a mail scanner fetching it) only asks; the button POSTs.
      const asked = await t.call({
        method: 'GET',
        url: unsubscribePath,
        as: null,
        headers: { accept: 'text/html' },
      })
      assert.equal(asked.statusCode, 200)
      assert.match(asked.body, /<h1>Unsubscribe\?<\/h1>/)
      const action = /<form method="post" action="([^"]+)">/.exec(asked.body)?.[1]?.replaceAll('&amp;', '&')
      assert.equal(action, unsubscribePath)
      assert.match(asked.headers['content-security-policy'] as string, /form-action 'self'/)
      assert.deepEqual(
        (await subscribers(page.id)).map((s: any) => s.email).sort(),
        ['ada@example.com', 'bob@example.com'],
        'opening the link unsubscribes nobody',
      )
      const askedJson = await t.call({ method: 'GET', url: unsubscribePath, as: null })
      assert.equal(askedJson.statusCode, 200)
      assert.match(json(askedJson).message, /^Stop getting emails from News\?/)
      // One click, as mail clients do it (RFC 8058 POST) and as the page's button does.
      const gone = await t.call({
        method: 'POST',
        url: unsubscribePath,
        as: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'List-Unsubscribe=One-Click',
      })
      assert.equal(gone.statusCode, 200)
      assert.match(gone.body, /Unsubscribed/)
      assert.equal((await t.call({ method: 'GET', url: unsubscribePath, as: null })).statusCode, 404)
      assert.deepEqual(
        (await subscribers(page.id)).map((s: any) => s.email),
        ['bob@example.com'],
      )
      await t.call({
        method: 'POST',
        url: `/v1/incidents/${incident.id}/updates`,
        payload: { description: 'Fixed', status: 'RESOLVED', notifySubscribers: true },
      })
      assert.deepEqual(await deliver(), { sent: 0, failed: 0 }, 'nobody confirmed is left')
    })

    /** The link to `path` in a mail, wherever it points. */
    const anyLinkIn = (body: string, path: string) => {
      const match = body.match(new RegExp(`(http://[a-z.]+)(/[a-z_/-]*${path}\\?token=[A-Za-z0-9_-]+)`))
      assert.ok(match, `a ${path} link in:\n${body}`)
      return { origin: match[1] as string, path: match[2] as string }
    }
    const mailTo = async (address: string, count: number) => {
      await smtp.waitFor(count)
      return smtp.received.filter((m) => m.to[0] === address).at(-1) as Received
    }

    test('asking again for a confirmation keeps the first link working: each link confirms until used', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Again', url: 'ask-again', cards: [] },
        }),
      )
      assert.equal((await subscribeJson('ask-again', 'eve@example.com')).statusCode, 202)
      assert.deepEqual(await deliver(), { sent: 1, failed: 0 })
      const first = anyLinkIn((await mailTo('eve@example.com', smtp.received.length)).body, 'confirm')
      nowMs += 11 * 60_000
      assert.equal((await subscribeJson('ask-again', 'eve@example.com')).statusCode, 202)
      assert.deepEqual(await deliver(), { sent: 1, failed: 0 }, 'a second confirmation after 10 minutes')
      const second = anyLinkIn((await mailTo('eve@example.com', smtp.received.length)).body, 'confirm')
      assert.notEqual(first.path, second.path)

      const opened = await t.call({ method: 'GET', url: first.path, as: null })
      assert.equal(opened.statusCode, 200, 'the first mail’s link still confirms')
      assert.equal((await subscribers(page.id))[0].status, 'CONFIRMED')
      assert.equal((await t.call({ method: 'GET', url: second.path, as: null })).statusCode, 200)
      const token = first.path.split('token=')[1]
      assert.equal(
        (await t.call({ method: 'GET', url: `/status/news/subscribe/confirm?token=${token}`, as: null }))
          .statusCode,
        404,
        'another page’s link does not confirm',
      )
    })

    test('asking again and again keeps the newest 5 links of a pending address; removing it drops them', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Many asks', url: 'many-asks', cards: [] },
        }),
      )
      const paths: string[] = []
      for (let i = 0; i < 7; i++) {
        assert.equal((await subscribeJson('many-asks', 'max@example.com')).statusCode, 202)
        assert.deepEqual(await deliver(), { sent: 1, failed: 0 })
        paths.push(anyLinkIn((await mailTo('max@example.com', smtp.received.length)).body, 'confirm').path)
        nowMs += 11 * 60_000
      }
      const [subscriber] = await subscribers(page.id)
      const links = () =>
        t.ctx.db
          .selectFrom('status_page_confirm_tokens')
          .select('token_hash')
          .where('subscriber_id', '=', subscriber.id)
          .execute()
      assert.equal((await links()).length, 5)
      const opened = async (path: string) => (await t.call({ method: 'GET', url: path, as: null })).statusCode
      assert.equal(await opened(paths[0] as string), 404, 'the oldest link no longer confirms')
      assert.equal(await opened(paths[1] as string), 404)
      assert.equal((await subscribers(page.id))[0].status, 'PENDING')
      assert.equal(await opened(paths[2] as string), 200, 'the fifth newest still confirms')
      assert.equal((await subscribers(page.id))[0].status, 'CONFIRMED')
      for (const path of paths.slice(3))
        assert.equal(await opened(path), 200, 'a link opened again still says so')

      const removed = await t.call({
        method: 'DELETE',
        url: `/v3/status-pages/${page.id}/subscribers/${subscriber.id}`,
      })
      assert.equal(removed.statusCode, 204, removed.body)
      assert.deepEqual(await links(), [])
      assert.equal(await opened(paths[6] as string), 404)
    })

    test('mail links keep working when the page’s slug changes, and use its custom domain', async () => {
      const payload = { name: 'Moving', url: 'moving', cards: [] }
      const page = json(await t.call({ method: 'POST', url: '/v3/status-pages', payload }))
      assert.equal((await subscribeJson('moving', 'max@example.com')).statusCode, 202)
      await deliver()
      const confirm = anyLinkIn((await mailTo('max@example.com', smtp.received.length)).body, 'confirm')
      assert.equal(confirm.origin, 'http://svc.test')
      const moved = await t.call({
        method: 'PUT',
        url: `/v3/status-pages/${page.id}`,
        payload: { ...payload, url: 'moved' },
      })
      assert.equal(moved.statusCode, 200, moved.body)
      const confirmed = await t.call({ method: 'GET', url: confirm.path, as: null })
      assert.equal(confirmed.statusCode, 200, 'the confirmation link outlives the old slug')
      assert.match(json(confirmed).message, /Subscription confirmed/)

      const post = (description: string) =>
        t.call({
          method: 'POST',
          url: `/v3/status-pages/${page.id}/incidents`,
          payload: {
            name: 'Moves',
            incidentUpdates: [{ description, status: 'INVESTIGATING', notifySubscribers: true }],
          },
        })
      await post('Moving house.')
      await deliver()
      const update = await mailTo('max@example.com', smtp.received.length)
      assert.match(update.body, /Status page: http:\/\/svc\.test\/status\/moved\n/)
      const unsubscribe = anyLinkIn(update.body, 'unsubscribe')
      assert.equal(update.headers['list-unsubscribe'], `<${unsubscribe.origin}${unsubscribe.path}>`)

      // With a custom domain, mails point there; the links still work after the slug changes again.
      const withDomain = { ...payload, url: 'moved-again', customDomain: 'status.moving.dev' }
      assert.equal(
        (await t.call({ method: 'PUT', url: `/v3/status-pages/${page.id}`, payload: withDomain })).statusCode,
        200,
      )
      await post('Moved to our own domain.')
      await deliver()
      const onDomain = await mailTo('max@example.com', smtp.received.length)
      assert.match(onDomain.body, /Status page: http:\/\/status\.moving\.dev\n/)
      const domainLink = anyLinkIn(onDomain.body, 'unsubscribe')
      assert.equal(domainLink.origin, 'http://status.moving.dev')
      assert.match(domainLink.path, /^\/status\/_subscription\/unsubscribe\?token=/)
      assert.equal(onDomain.headers['list-unsubscribe'], `<http://status.moving.dev${domainLink.path}>`)
      const asked = await t.call({
        method: 'GET',
        url: domainLink.path,
        as: null,
        headers: { host: 'status.moving.dev' },
      })
      assert.equal(asked.statusCode, 200, asked.body)
      assert.match(json(asked).message, /^Stop getting emails from Moving\?/)

      const other = await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: { name: 'Other', url: 'other-domain', customDomain: 'status.other.dev', cards: [] },
      })
      assert.equal(other.statusCode, 201, other.body)
      const foreign = await t.call({
        method: 'GET',
        url: domainLink.path,
        as: null,
        headers: { host: 'status.other.dev' },
      })
      assert.equal(foreign.statusCode, 404, 'another page’s domain does not answer for this page')

      // The domain moves elsewhere (or goes): its links still work while it points at svc.
      assert.equal(
        (
          await t.call({
            method: 'PUT',
            url: `/v3/status-pages/${page.id}`,
            payload: { ...payload, url: 'moved-again' },
          })
        ).statusCode,
        200,
      )
      const afterMove = await t.call({
        method: 'GET',
        url: domainLink.path,
        as: null,
        headers: { host: 'status.moving.dev' },
      })
      assert.equal(afterMove.statusCode, 200, afterMove.body)

      const gone = await t.call({ method: 'POST', url: unsubscribe.path, as: null })
      assert.equal(gone.statusCode, 200, 'the first update’s link still unsubscribes')
      assert.deepEqual(await subscribers(page.id), [])
      const elsewhere = await t.call({
        method: 'GET',
        url: '/subscribe/confirm?token=nope',
        as: null,
        headers: { host: 'status.moving.dev' },
      })
      assert.equal(elsewhere.statusCode, 404)

      // A confirmation mail sent while the page has its domain links there too.
      assert.equal(
        (await t.call({ method: 'PUT', url: `/v3/status-pages/${page.id}`, payload: withDomain })).statusCode,
        200,
      )
      assert.equal((await subscribeJson('moved-again', 'liz@example.com')).statusCode, 202)
      await deliver()
      const domainConfirm = anyLinkIn((await mailTo('liz@example.com', smtp.received.length)).body, 'confirm')
      assert.equal(domainConfirm.origin, 'http://status.moving.dev')
      const viaDomain = await t.call({
        method: 'GET',
        url: domainConfirm.path,
        as: null,
        headers: { host: 'status.moving.dev' },
      })
      assert.equal(viaDomain.statusCode, 200, viaDomain.body)
      assert.equal((await subscribers(page.id))[0].status, 'CONFIRMED')
    })

    test('a form post works without JavaScript; bad addresses and private pages are refused', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Forms', url: 'forms', cards: [] },
        }),
      )
      const form = (body: string, slug = 'forms') =>
        t.call({
          method: 'POST',
          url: `/status/${slug}/subscribe`,
          as: null,
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
          payload: body,
        })
      const ok = await form('email=carol%40example.com')
      assert.equal(ok.statusCode, 200)
      assert.match(String(ok.headers['content-type']), /^text\/html/)
      assert.match(ok.body, /Check your inbox/)
      assert.deepEqual(
        (await subscribers(page.id)).map((s: any) => s.email),
        ['carol@example.com'],
      )
      const bad = await form('email=not-an-address')
      assert.equal(bad.statusCode, 400)
      assert.match(bad.body, /not an email address/)
      const badJson = await subscribeJson('forms', 'nope@')
      assert.equal(badJson.statusCode, 400)
      assert.equal(json(badJson).message, 'body.email must be an email address')
      assert.equal((await subscribeJson('forms', 'x'.repeat(300))).statusCode, 400)
      assert.equal((await subscribeJson('missing', 'a@example.com')).statusCode, 404)
      await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: { name: 'Hidden', url: 'hidden', isPrivate: true, cards: [] },
      })
      // A private page is as unknown to a subscriber as a missing one.
      assert.equal((await subscribeJson('hidden', 'a@example.com')).statusCode, 404)
      assert.equal(
        (
          await t.call({
            method: 'DELETE',
            url: `/v3/status-pages/${page.id}/subscribers/${(await subscribers(page.id))[0].id}`,
          })
        ).statusCode,
        204,
      )
      assert.deepEqual(await subscribers(page.id), [])
      await deliver()
    })

    test('a refused delivery is retried with backoff and given up after the last attempt', async () => {
      const refusing = await startSmtp({ refuse: true })
      const badTransport = createTransport(refusing.url)
      try {
        const page = json(
          await t.call({
            method: 'POST',
            url: '/v3/status-pages',
            payload: { name: 'Retry', url: 'retry', cards: [] },
          }),
        )
        await subscribeJson('retry', 'dave@example.com')
        const attempt = () => deliverDueSubscriberEmails(t.ctx, badTransport, { owner: 'test', from: FROM })
        assert.deepEqual(await attempt(), { sent: 0, failed: 1 })
        let [email] = await listEmails(t.ctx, page.id)
        assert.equal(email?.status, 'PENDING')
        assert.equal(Number(email?.attempts), 1)
        assert.match(String(email?.last_error), /mailbox unavailable/)
        assert.deepEqual(await attempt(), { sent: 0, failed: 0 }, 'not due before its backoff')
        for (let i = 2; i <= MAX_ATTEMPTS; i++) {
          nowMs += 2 * 60 * 60_000
          assert.deepEqual(await attempt(), { sent: 0, failed: 1 })
        }
        ;[email] = await listEmails(t.ctx, page.id)
        assert.equal(email?.status, 'FAILED')
        assert.equal(Number(email?.attempts), MAX_ATTEMPTS)
        nowMs += 2 * 60 * 60_000
        assert.deepEqual(await attempt(), { sent: 0, failed: 0 })
      } finally {
        badTransport.close()
        await refusing.close()
      }
    })

    test('the delivery loop wakes on queued mail (no polling) and sends it over SVC_SMTP_URL until stopped', async () => {
      await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: { name: 'Loop', url: 'loop', cards: [] },
      })
      const before = smtp.received.length
      // As main.ts does: on PostgreSQL, mail queued in a transaction wakes the loop once committed.
      const wakeups = listenForWakeups(t.store.url, { warn: () => {} })
      await wakeups.ready
      const loop = startSubscriberMailDelivery(t.ctx, {
        smtpUrl: smtp.url,
        from: FROM,
        // It looks by itself only after an hour: the mail below goes out on the wake-up its queueing raises.
        fallbackMs: 3_600_000,
        log: { error: (object) => assert.fail(String((object as { err: unknown }).err)) },
      })
      try {
        await subscribeJson('loop', 'erin@example.com')
        await smtp.waitFor(before + 1)
        assert.deepEqual(smtp.received.at(-1)?.to, ['erin@example.com'])
      } finally {
        await loop.stop()
        await wakeups.close()
      }
    })

    test('one-click unsubscribe takes RFC 8058’s multipart/form-data POST', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Multipart', url: 'multipart', cards: [] },
        }),
      )
      assert.equal((await subscribeJson('multipart', 'gina@example.com')).statusCode, 202)
      const { unsubscribe_token: token } = await t.ctx.db
        .selectFrom('status_page_subscribers')
        .select('unsubscribe_token')
        .where('status_page_id', '=', page.id)
        .executeTakeFirstOrThrow()
      const multipart = (payload: string) =>
        t.call({
          method: 'POST',
          url: `/status/multipart/unsubscribe?token=${token}`,
          as: null,
          headers: { 'content-type': 'multipart/form-data; boundary=svc-boundary' },
          payload,
        })
      const gone = await multipart(
        '--svc-boundary\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--svc-boundary--\r\n',
      )
      assert.equal(gone.statusCode, 200, gone.body)
      assert.deepEqual(json(gone), { message: 'Unsubscribed: you will get no more emails from Multipart.' })
      assert.deepEqual(await subscribers(page.id), [])
      const broken = await multipart('not a multipart body')
      assert.equal(broken.statusCode, 400, broken.body)
      assert.equal(json(broken).error, 'Bad Request')
      await deliver()
    })

    test('a page sends at most CONFIRMATIONS_PER_PAGE_PER_HOUR confirmation mails an hour, then answers 429', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Flood', url: 'flood', cards: [] },
        }),
      )
      await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: { name: 'Calm', url: 'calm', cards: [] },
      })
      for (let i = 0; i < CONFIRMATIONS_PER_PAGE_PER_HOUR; i++) {
        const res = await subscribeJson('flood', `user${i}@example.com`)
        assert.equal(res.statusCode, 202, res.body)
      }
      const refused = await subscribeJson('flood', 'one-too-many@example.com')
      assert.equal(refused.statusCode, 429, refused.body)
      assert.deepEqual(json(refused), {
        statusCode: 429,
        error: 'Too Many Requests',
        message: 'Too many subscriptions to this page right now: try again in 60 minutes',
      })
      assert.equal(refused.headers['retry-after'], '3600')
      const form = await t.call({
        method: 'POST',
        url: '/status/flood/subscribe',
        as: null,
        headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=form%40example.com',
      })
      assert.equal(form.statusCode, 429)
      assert.match(form.body, /Too many sign-ups right now/)
      // An address that already has its mail sends none, so the cap doesn't apply to it.
      assert.equal((await subscribeJson('flood', 'user0@example.com')).statusCode, 202)
      assert.equal((await subscribeJson('calm', 'one-too-many@example.com')).statusCode, 202, 'other pages')
      assert.equal((await listEmails(t.ctx, page.id)).length, CONFIRMATIONS_PER_PAGE_PER_HOUR)
      const listed = await t.call({ method: 'GET', url: `/v3/status-pages/${page.id}/subscribers` })
      assert.match(
        String(listed.headers['content-range']),
        new RegExp(`/${CONFIRMATIONS_PER_PAGE_PER_HOUR}$`),
      )

      nowMs += 3_600_000
      assert.equal(
        (await subscribeJson('flood', 'one-too-many@example.com')).statusCode,
        202,
        'an hour later',
      )
      assert.equal((await listEmails(t.ctx, page.id)).length, CONFIRMATIONS_PER_PAGE_PER_HOUR + 1)
    })

    test('subscribing while the page is deleted: 404 as for a page gone, no subscriber left behind', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Going', url: 'going-subscribers', cards: [] },
        }),
      )
      // The page's deletion has locked it and waits where it deletes what names it; then the subscription.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('status_page_cards'), [
        () => t.call({ method: 'DELETE', url: `/v3/status-pages/${page.id}` }),
        () => subscribeJson('going-subscribers', 'late@example.com'),
      ])
      assert.deepEqual(
        answers.map((res) => [res.statusCode, res.body && json(res).message]),
        [
          [204, ''],
          [404, 'Status page not found'],
        ],
      )
      const left = await t.store.db
        .selectFrom('status_page_subscribers')
        .select('id')
        .where('status_page_id', '=', page.id)
        .execute()
      assert.deepEqual(left, [])
    })

    test('asking again while the subscriber is removed subscribes the address anew, never a 409', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Removing', url: 'removing-subscribers', cards: [] },
        }),
      )
      assert.equal((await subscribeJson('removing-subscribers', 'again@example.com')).statusCode, 202)
      const [first] = await subscribers(page.id)
      nowMs += 11 * 60_000
      // The removal has locked the subscriber and waits where it deletes its links; then the new request.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('status_page_confirm_tokens'), [
        () => t.call({ method: 'DELETE', url: `/v3/status-pages/${page.id}/subscribers/${first.id}` }),
        () => subscribeJson('removing-subscribers', 'again@example.com'),
      ])
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [204, 202],
      )
      const now = await subscribers(page.id)
      assert.deepEqual(
        now.map((s: any) => [s.email, s.status, s.id === first.id]),
        [['again@example.com', 'PENDING', false]],
      )
    })

    test('a confirmation link opened while its subscriber is removed: 404 as for a link of one gone', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Unconfirmed', url: 'removed-unconfirmed', cards: [] },
        }),
      )
      assert.equal((await subscribeJson('removed-unconfirmed', 'late@example.com')).statusCode, 202)
      const [subscriber] = await subscribers(page.id)
      const [email] = await listEmails(t.ctx, page.id)
      const confirmPath = linkIn(email?.text_body ?? '', 'confirm')
      // The removal has locked the subscriber and waits where it deletes its links; then the link opened.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('status_page_confirm_tokens'), [
        () => t.call({ method: 'DELETE', url: `/v3/status-pages/${page.id}/subscribers/${subscriber.id}` }),
        () => t.call({ method: 'GET', url: confirmPath, as: null }),
      ])
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [204, 404],
      )
      assert.match(answers[1]?.body ?? '', /This confirmation link is unknown/)
      assert.deepEqual(await subscribers(page.id), [])
    })

    test('a confirmation link opened while its page is deleted: 404 as for a link of one gone', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Closing', url: 'closing-unconfirmed', cards: [] },
        }),
      )
      assert.equal((await subscribeJson('closing-unconfirmed', 'late@example.com')).statusCode, 202)
      const [email] = await listEmails(t.ctx, page.id)
      const confirmPath = linkIn(email?.text_body ?? '', 'confirm')
      // The page's deletion has locked its subscriber (deleting it with the page) and waits where it
      // deletes the subscriber's links; then the link opened, whose confirmation waits for the subscriber.
      const answers = await inTurnWhileHeld(
        t.ctx,
        (tx) => sql`lock table status_page_confirm_tokens in exclusive mode`.execute(tx),
        [
          () => t.call({ method: 'DELETE', url: `/v3/status-pages/${page.id}` }),
          () => t.call({ method: 'GET', url: confirmPath, as: null }),
        ],
      )
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [204, 404],
      )
      assert.match(answers[1]?.body ?? '', /This confirmation link is unknown/)
      const left = await t.store.db
        .selectFrom('status_page_subscribers')
        .select('id')
        .where('status_page_id', '=', page.id)
        .execute()
      assert.deepEqual(left, [])
    })

    test('the same address subscribing several times at once (a double click) is one subscriber, never a 500', async () => {
      const page = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: 'Twice', url: 'twice', cards: [] },
        }),
      )
      const subscribeTwice = () =>
        Promise.all([
          subscribeJson('twice', 'frank@example.com'),
          subscribeJson('twice', 'frank@example.com'),
        ])
      let answers: Awaited<ReturnType<typeof subscribeTwice>>
      if (t.ctx.engine === 'postgres') {
        // Both requests find no subscriber, then wait to insert one until the table lock is let go.
        const { answering } = await t.ctx.db.transaction().execute(async (tx) => {
          await sql`lock table status_page_subscribers in exclusive mode`.execute(tx)
          const answering = subscribeTwice()
          for (let waiting = 0; waiting < 2; ) {
            await new Promise((resolve) => setTimeout(resolve, 10))
            const { rows } = await sql<{ n: number }>`
              select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
              where c.relname = 'status_page_subscribers' and not l.granted`.execute(t.ctx.db)
            waiting = rows[0]?.n ?? 0
          }
          return { answering }
        })
        answers = await answering
      } else {
        answers = await subscribeTwice()
      }
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [202, 202],
        answers.map((res) => res.body).join('\n'),
      )
      assert.deepEqual(
        (await subscribers(page.id)).map((s: any) => [s.email, s.status]),
        [['frank@example.com', 'PENDING']],
      )
      assert.equal((await listEmails(t.ctx, page.id)).length, 1, 'one confirmation email')
    })
  })
}

describe('a server started with SVC_SMTP_URL', () => {
  test('sends the confirmation email of a subscription made over HTTP', async () => {
    const smtp = await startSmtp()
    const server = await startServerProcess({ SVC_SMTP_URL: smtp.url, SVC_SMTP_FROM: FROM })
    try {
      const headers = { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' }
      const page = await fetch(`${server.url}/v3/status-pages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Process', url: 'process', cards: [] }),
      })
      assert.equal(page.status, 201)
      const res = await fetch(`${server.url}/status/process/subscribe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'frank@example.com' }),
      })
      assert.equal(res.status, 202)
      await smtp.waitFor(1)
      assert.deepEqual(smtp.received[0]?.to, ['frank@example.com'])
      assert.equal(smtp.received[0]?.headers.from, FROM)
      assert.match(smtp.received[0]?.body ?? '', /\/status\/_subscription\/confirm\?token=/)
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0)
      await smtp.close()
    }
  })
})
