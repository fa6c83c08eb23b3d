import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTransport } from 'nodemailer'
import { startSmtp } from '../../testing/smtp-receiver.ts'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'
import { createDispatcher } from '../alerting/dispatcher.ts'
import { startReceiver, storeResult } from '../alerting/testing.ts'
import { deliverDueSubscriberEmails } from '../status-page-subscribers/subscriber-mail.ts'
import { inMaintenance, maintenanceHistory } from './maintenance-windows.service.ts'

for (const engine of testEngines()) {
  describe(`maintenance occurrences on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-03-03T12:00:00.000Z')
    let windowId: number
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    const setNow = (iso: string) => {
      nowMs = Date.parse(iso)
    }
    const silencedAt = async (iso: string, tags = ['db']) => {
      setNow(iso)
      return inMaintenance(t.ctx, t.owner.accountId, tags, new Date(nowMs))
    }
    const occurrences = `/v1/maintenance-windows/:id/maintenances`
    const url = (path = '') => `${occurrences.replace(':id', String(windowId))}${path}`

    before(async () => {
      receiver = await startReceiver()
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      // Daily 02:00–03:00 UTC from 1 March; repeats end at midnight starting 31 March: 30 occurrences.
      const created = await t.call({
        method: 'POST',
        url: '/v1/maintenance-windows',
        payload: {
          name: 'Nightly backup',
          tags: ['db'],
          startsAt: '2026-03-01T02:00:00Z',
          endsAt: '2026-03-01T03:00:00Z',
          repeatUnit: 'DAY',
          repeatEndsAt: '2026-03-31',
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      windowId = json(created).id
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    test('lists the occurrences the schedule gives, oldest first, paged, with statuses by the clock', async () => {
      setNow('2026-03-03T02:30:00.000Z')
      const page = await t.call({ method: 'GET', url: url('?limit=3&page=1') })
      assert.equal(page.statusCode, 200, page.body)
      assert.equal(page.headers['content-range'], 'items 0-2/30')
      assert.deepEqual(
        json(page).map((o: Record<string, unknown>) => [o.id, o.startsAt, o.endsAt, o.status]),
        [
          ['0', '2026-03-01T02:00:00.000Z', '2026-03-01T03:00:00.000Z', 'COMPLETED'],
          ['1', '2026-03-02T02:00:00.000Z', '2026-03-02T03:00:00.000Z', 'COMPLETED'],
          ['2', '2026-03-03T02:00:00.000Z', '2026-03-03T03:00:00.000Z', 'IN_PROGRESS'],
        ],
      )
      const one = json(await t.call({ method: 'GET', url: url('/3') }))
      assert.deepEqual([one.maintenanceWindowId, one.status, one.updates], [windowId, 'SCHEDULED', []])
      const last = json(await t.call({ method: 'GET', url: url('?limit=7&page=5') }))
      assert.deepEqual(
        last.map((o: { id: string }) => o.id),
        ['28', '29'],
      )
    })

    test('a deleted occurrence silences nothing and leaves the list; the next one still silences', async () => {
      assert.equal(await silencedAt('2026-03-04T02:30:00.000Z'), true)
      setNow('2026-03-03T12:00:00.000Z')
      const deleted = await t.call({ method: 'DELETE', url: url('/3') })
      assert.equal(deleted.statusCode, 204, deleted.body)
      assert.equal((await t.call({ method: 'GET', url: url('/3') })).statusCode, 404)
      assert.equal((await t.call({ method: 'DELETE', url: url('/3') })).statusCode, 404)
      assert.equal(await silencedAt('2026-03-04T02:30:00.000Z'), false)
      assert.equal(await silencedAt('2026-03-05T02:30:00.000Z'), true)
      const page = await t.call({ method: 'GET', url: url('?limit=2&page=2') })
      assert.equal(page.headers['content-range'], 'items 2-3/29')
      assert.deepEqual(
        json(page).map((o: { id: string }) => o.id),
        ['2', '4'],
      )
    })

    test('a moved occurrence silences at its new time, not at its old one', async () => {
      setNow('2026-03-03T12:00:00.000Z')
      const moved = await t.call({
        method: 'PATCH',
        url: url('/5'),
        payload: { startsAt: '2026-03-06T10:00:00Z', endsAt: '2026-03-06T11:00:00Z' },
      })
      assert.equal(moved.statusCode, 200, moved.body)
      assert.deepEqual(
        [json(moved).startsAt, json(moved).endsAt, json(moved).status],
        ['2026-03-06T10:00:00.000Z', '2026-03-06T11:00:00.000Z', 'SCHEDULED'],
      )
      assert.equal(await silencedAt('2026-03-06T02:30:00.000Z'), false)
      assert.equal(await silencedAt('2026-03-06T10:30:00.000Z'), true)
      assert.equal(await silencedAt('2026-03-06T10:30:00.000Z', ['web']), false, 'only the window tags')
      assert.equal(await silencedAt('2026-03-06T11:00:00.000Z'), false)
      // Only the end: the start stays where it was moved.
      setNow('2026-03-03T12:00:00.000Z')
      const longer = json(
        await t.call({ method: 'PATCH', url: url('/5'), payload: { endsAt: '2026-03-06T12:00:00Z' } }),
      )
      assert.deepEqual(
        [longer.startsAt, longer.endsAt],
        ['2026-03-06T10:00:00.000Z', '2026-03-06T12:00:00.000Z'],
      )
    })

    test('a CANCELLED update stops an occurrence silencing; SCHEDULED takes it back', async () => {
      setNow('2026-03-03T12:00:00.000Z')
      const posted = await t.call({
        method: 'POST',
        url: url('/6/updates'),
        payload: { status: 'CANCELLED', description: 'Backup moved to the weekend' },
      })
      assert.equal(posted.statusCode, 201, posted.body)
      const update = json(posted)
      assert.deepEqual(
        [
          update.maintenanceId,
          update.status,
          update.previousStatus,
          update.notifySubscribers,
          update.dateAdjustments,
        ],
        ['6', 'CANCELLED', 'SCHEDULED', false, null],
      )
      assert.equal(json(await t.call({ method: 'GET', url: url('/6') })).status, 'CANCELLED')
      assert.equal(await silencedAt('2026-03-07T02:30:00.000Z'), false)
      setNow('2026-03-03T12:01:00.000Z')
      await t.call({
        method: 'POST',
        url: url('/6/updates'),
        payload: { status: 'SCHEDULED', description: 'Back on' },
      })
      const back = json(await t.call({ method: 'GET', url: url('/6') }))
      assert.deepEqual(
        [back.status, back.updates.map((u: { status: string }) => u.status)],
        ['SCHEDULED', ['CANCELLED', 'SCHEDULED']],
      )
      assert.equal(await silencedAt('2026-03-07T02:30:00.000Z'), true)
    })

    test('COMPLETED ends an occurrence early and IN_PROGRESS starts one early, as date adjustments', async () => {
      setNow('2026-03-08T02:15:00.000Z')
      const completed = json(
        await t.call({
          method: 'POST',
          url: url('/7/updates'),
          payload: { status: 'COMPLETED', description: 'Done' },
        }),
      )
      assert.deepEqual(
        [completed.previousStatus, completed.previousEndsAt, completed.dateAdjustments],
        [
          'IN_PROGRESS',
          '2026-03-08T03:00:00.000Z',
          { startsAt: '2026-03-08T02:00:00.000Z', endsAt: '2026-03-08T02:15:00.000Z' },
        ],
      )
      assert.equal(await silencedAt('2026-03-08T02:30:00.000Z'), false)

      setNow('2026-03-09T01:30:00.000Z')
      assert.equal(await silencedAt('2026-03-09T01:30:00.000Z'), false)
      const started = json(
        await t.call({
          method: 'POST',
          url: url('/8/updates'),
          payload: { status: 'IN_PROGRESS', description: 'Early' },
        }),
      )
      assert.deepEqual(started.dateAdjustments, {
        startsAt: '2026-03-09T01:30:00.000Z',
        endsAt: '2026-03-09T03:00:00.000Z',
      })
      assert.equal(await silencedAt('2026-03-09T01:45:00.000Z'), true)
    })

    test('an update is edited and deleted; bad input is a 400 or 404 in the error shape', async () => {
      setNow('2026-03-03T12:00:00.000Z')
      const update = json(
        await t.call({
          method: 'POST',
          url: url('/9/updates'),
          payload: { status: 'SCHEDULED', description: 'Planned' },
        }),
      )
      const edited = await t.call({
        method: 'PUT',
        url: url(`/9/updates/${update.id}`),
        payload: { description: 'Planned, 1 hour' },
      })
      assert.equal(edited.statusCode, 200, edited.body)
      assert.deepEqual([json(edited).description, json(edited).status], ['Planned, 1 hour', 'SCHEDULED'])
      assert.equal(
        (await t.call({ method: 'PUT', url: url(`/8/updates/${update.id}`), payload: { description: 'x' } }))
          .statusCode,
        404,
      )
      assert.equal((await t.call({ method: 'DELETE', url: url(`/9/updates/${update.id}`) })).statusCode, 204)
      assert.deepEqual(json(await t.call({ method: 'GET', url: url('/9') })).updates, [])
      assert.equal((await t.call({ method: 'DELETE', url: url(`/9/updates/${update.id}`) })).statusCode, 404)

      const backwards = await t.call({
        method: 'PATCH',
        url: url('/10'),
        payload: { endsAt: '2026-03-11T01:00:00Z' },
      })
      assert.equal(backwards.statusCode, 400)
      assert.equal(json(backwards).message, 'body.endsAt must be after startsAt')
      const badStatus = await t.call({
        method: 'POST',
        url: url('/10/updates'),
        payload: { status: 'DONE', description: 'x' },
      })
      assert.equal(badStatus.statusCode, 400)
      assert.equal(
        (await t.call({ method: 'POST', url: url('/10/updates'), payload: { status: 'COMPLETED' } }))
          .statusCode,
        400,
      )
      for (const id of ['abc', '30', '-1', '99999999999999999999']) {
        const missing = await t.call({ method: 'GET', url: url(`/${id}`) })
        assert.equal(missing.statusCode, 404, id)
        assert.equal(json(missing).error, 'Not Found')
      }
      const stranger = await ownerOfAnotherAccount(t)
      assert.equal((await t.call({ as: stranger, method: 'GET', url: url('/0') })).statusCode, 404)
      assert.equal(
        (await t.call({ method: 'GET', url: '/v1/maintenance-windows/999999/maintenances' })).statusCode,
        404,
      )
      assert.equal((await t.call({ method: 'GET', url: url('?limit=51') })).statusCode, 400)
    })

    test('the status history reads the changed occurrences: as scheduled until the change, as changed after', async () => {
      setNow('2026-03-10T00:00:00.000Z')
      const history = await maintenanceHistory(
        t.ctx,
        t.owner.accountId,
        Date.parse('2026-03-03T00:00:00.000Z'),
        nowMs,
      )
      const iso = (ms: number) => new Date(ms).toISOString().slice(5, 16)
      assert.deepEqual(
        history.map((h) => [h.tags, h.occurrences.map(([from, to]) => `${iso(from)}/${iso(to)}`)]),
        [
          [
            ['db'],
            [
              // Made at 03-03 12:00 (its history starts then); 03-04 deleted before it began.
              '03-05T02:00/03-05T03:00',
              '03-06T10:00/03-06T12:00',
              '03-07T02:00/03-07T03:00',
              '03-08T02:00/03-08T02:15',
              '03-09T01:30/03-09T03:00',
            ],
          ],
        ],
      )
    })

    test('a partial PUT keeps the rest; a new schedule forgets the occurrences changed by hand', async () => {
      setNow('2026-03-03T12:00:00.000Z')
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/maintenance-windows/${windowId}`,
        payload: { name: 'Nightly backups' },
      })
      assert.equal(renamed.statusCode, 200, renamed.body)
      assert.deepEqual(
        [json(renamed).name, json(renamed).tags, json(renamed).repeatUnit, json(renamed).repeatEndsAt],
        ['Nightly backups', ['db'], 'DAY', '2026-03-31T00:00:00.000Z'],
      )
      assert.equal((await t.call({ method: 'GET', url: url('/3') })).statusCode, 404, 'still deleted')
      const moved = await t.call({
        method: 'PUT',
        url: `/v1/maintenance-windows/${windowId}`,
        payload: { startsAt: '2026-03-01T04:00:00Z', endsAt: '2026-03-01T05:00:00Z' },
      })
      assert.equal(moved.statusCode, 200, moved.body)
      const third = json(await t.call({ method: 'GET', url: url('/3') }))
      assert.deepEqual([third.startsAt, third.status], ['2026-03-04T04:00:00.000Z', 'SCHEDULED'])
      assert.equal(await silencedAt('2026-03-07T04:30:00.000Z'), true, 'the cancellation is forgotten')
      setNow('2026-03-03T12:00:00.000Z')
      const oneOff = await t.call({
        method: 'PUT',
        url: `/v1/maintenance-windows/${windowId}`,
        payload: { repeatUnit: null },
      })
      assert.equal(oneOff.statusCode, 200, oneOff.body)
      assert.deepEqual([json(oneOff).repeatInterval, json(oneOff).repeatEndsAt], [null, null])
      const bad = await t.call({
        method: 'PUT',
        url: `/v1/maintenance-windows/${windowId}`,
        payload: { endsAt: '2026-02-01T00:00:00Z' },
      })
      assert.equal(bad.statusCode, 400)
    })

    test('alerting: a failure during a cancelled occurrence alerts', async () => {
      setNow('2026-04-01T00:00:00.000Z')
      const window = json(
        await t.call({
          method: 'POST',
          url: '/v1/maintenance-windows',
          payload: {
            name: 'Cache',
            tags: ['cache'],
            startsAt: '2026-04-01T02:00:00Z',
            endsAt: '2026-04-01T03:00:00Z',
            repeatUnit: 'DAY',
          },
        }),
      )
      const channel = json(
        await t.call({
          method: 'POST',
          url: '/v1/alert-channels',
          payload: { type: 'WEBHOOK', config: { name: 'receiver', url: `${receiver.url}/hook` } },
        }),
      )
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/api?autoAssignAlerts=false',
        payload: {
          name: 'Cache',
          activated: false,
          tags: ['cache'],
          request: { url: 'https://cache.example.com/health' },
          alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const check = { id: json(created).id as string, accountId: t.owner.accountId }
      const cancelled = await t.call({
        method: 'POST',
        url: `/v1/maintenance-windows/${window.id}/maintenances/1/updates`,
        payload: { status: 'CANCELLED', description: 'Not tonight' },
      })
      assert.equal(cancelled.statusCode, 201, cancelled.body)
      const node = createDispatcher(t.ctx, { log: { error: () => {} } })
      // Tonight's occurrence (index 0) silences the failure; tomorrow's (1) is cancelled, so it alerts.
      setNow('2026-04-01T02:30:00.000Z')
      await storeResult(t.ctx, check, { status: 'failing' })
      await node.runDue()
      assert.equal(receiver.received.length, 0)
      setNow('2026-04-01T03:30:00.000Z')
      await storeResult(t.ctx, check, { status: 'passing' })
      await node.runDue()
      setNow('2026-04-02T02:30:00.000Z')
      await storeResult(t.ctx, check, { status: 'failing' })
      await node.runDue()
      assert.deepEqual(
        receiver.received.map((r) => r.url),
        ['/hook'],
      )
    })

    test('an update with notifySubscribers mails the subscribers of the pages its checks show on, once', async () => {
      const smtp = await startSmtp()
      const transport = createTransport(smtp.url)
      try {
        const post = async (path: string, payload: object) => {
          const res = await t.call({ method: 'POST', url: path, payload })
          assert.ok([200, 201].includes(res.statusCode), `${path}: ${res.body}`)
          return json(res)
        }
        const check = (name: string, tags: string[]) =>
          post('/v1/checks/api', { name, tags, activated: false, request: { url: 'http://127.0.0.1:9/' } })
        const pageShowing = async (slug: string, checkId: string, email: string) => {
          const service = await post('/v1/status-pages/services', { name: slug, checkIds: [checkId] })
          const page = await post('/v3/status-pages', {
            name: `Page ${slug}`,
            url: slug,
            cards: [{ name: 'Main', services: [{ id: service.id }] }],
          })
          await post(`/v1/status-pages/${page.id}/subscriptions/bulk`, {
            subscriptions: [{ type: 'EMAIL', config: email }],
            autoVerify: true,
          })
        }
        await pageShowing('store-page', (await check('Store', ['store'])).id, 'ada@example.com')
        await pageShowing('other-page', (await check('Other', ['other'])).id, 'bob@example.com')
        const window = await post('/v1/maintenance-windows', {
          name: 'Store upgrade',
          tags: ['store'],
          startsAt: '2026-05-01T02:00:00Z',
          endsAt: '2026-05-01T03:00:00Z',
        })
        const updates = `/v1/maintenance-windows/${window.id}/maintenances/0/updates`
        setNow('2026-05-01T01:30:00.000Z')
        await post(updates, {
          status: 'IN_PROGRESS',
          description: 'Starting early.',
          notifySubscribers: true,
        })
        await post(updates, { status: 'VERIFYING', description: 'Not mailed.' })
        const deliver = () =>
          deliverDueSubscriberEmails(t.ctx, transport, { owner: 'test', from: 'Status <s@svc.test>' })
        assert.deepEqual(await deliver(), { sent: 1, failed: 0 }, 'one subscriber, one flagged update')
        await smtp.waitFor(1)
        const [mail] = smtp.received
        assert.deepEqual(mail?.to, ['ada@example.com'], 'only the page whose service the window covers')
        assert.equal(mail?.headers.subject, '[Page store-page] Maintenance Store upgrade: In progress')
        assert.match(mail?.body ?? '', /In progress \(2026-05-01 01:30 to 2026-05-01 03:00 UTC\)/)
        assert.match(mail?.body ?? '', /Starting early\./)
        assert.match(mail?.body ?? '', /Unsubscribe with one click: http:\/\/svc\.test\//)
        assert.deepEqual(await deliver(), { sent: 0, failed: 0 })
      } finally {
        transport.close()
        await smtp.close()
      }
    })
  })
}
