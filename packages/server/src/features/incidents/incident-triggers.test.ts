import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { sql } from 'kysely'
import { inTurnWhileHeld } from '../../testing/held-lock.ts'
import { type CallOptions, createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { type IncidentTrigger, openIncidentFromCheck, resolveIncidentFromCheck } from './incident-triggers.ts'
import type { Incident } from './incidents.schemas.ts'

const T0 = Date.parse('2026-11-22T12:00:00.000Z')

for (const engine of testEngines()) {
  describe(`incidents opened and resolved by checks on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = T0
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    /** A service named `name`, a URL check (not activated) opening `incident` on it, and the trigger saved. */
    async function triggeringCheck(
      name: string,
      incident: Pick<IncidentTrigger, 'severity' | 'name' | 'description'>,
    ) {
      const service = json(
        await t.call({ method: 'POST', url: '/v1/status-pages/services', payload: { name } }),
      )
      const trigger = { serviceId: service.id as string, ...incident, notifySubscribers: false }
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/url',
        payload: {
          name,
          activated: false,
          request: { url: 'http://127.0.0.1:9/' },
          triggerIncident: trigger,
        },
      })
      assert.equal(created.statusCode, 201, created.body)
      const check = json(created)
      return { service, check, trigger, opening: { id: check.id as string, accountId: t.owner.accountId } }
    }
    /** A status page named and addressed `url` with one card showing `serviceId`. */
    async function pageShowing(serviceId: string, url: string) {
      const page = await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: { name: url, url, cards: [{ name: 'S', services: [{ id: serviceId }] }] },
      })
      assert.equal(page.statusCode, 201, page.body)
      return json(page)
    }

    test('opens one incident per page showing the service, once; resolves them when the check recovers', async () => {
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'checkout', activated: false, request: { url: 'http://127.0.0.1:9/' } },
        }),
      )
      const service = json(
        await t.call({
          method: 'POST',
          url: '/v1/status-pages/services',
          payload: { name: 'Checkout', checkIds: [check.id] },
        }),
      )
      const hidden = json(
        await t.call({ method: 'POST', url: '/v1/status-pages/services', payload: { name: 'Hidden' } }),
      )
      const pageIds: string[] = []
      for (const url of ['public-trigger', 'internal-trigger']) {
        const page = await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: { name: url, url, cards: [{ name: 'Shop', services: [{ id: service.id }] }] },
        })
        pageIds.push(json(page).id)
      }
      const account = { id: check.id, accountId: t.owner.accountId }
      const trigger = {
        serviceId: service.id,
        severity: 'MEDIUM' as const,
        name: 'Checkout is failing',
        description: 'Some payments fail. We are investigating.',
        notifySubscribers: false,
      }

      const opened = await openIncidentFromCheck(t.ctx, account, trigger)
      assert.deepEqual(opened.map((i) => i.statusPageId).sort(), [...pageIds].sort())
      for (const incident of opened) {
        assert.equal(incident.name, 'Checkout is failing')
        assert.equal(incident.severity, 'MEDIUM')
        assert.equal(incident.lastUpdateStatus, 'INVESTIGATING')
        assert.deepEqual(incident.componentImpacts, [
          {
            componentId: service.id,
            status: 'PARTIAL_OUTAGE',
            startedAt: new Date(T0).toISOString(),
            endedAt: null,
          },
        ])
        assert.equal(incident.incidentUpdates[0]?.description, 'Some payments fail. We are investigating.')
      }
      assert.deepEqual(
        await openIncidentFromCheck(t.ctx, account, trigger),
        [],
        'an open incident is not opened again',
      )
      assert.deepEqual(
        await openIncidentFromCheck(t.ctx, account, { ...trigger, serviceId: hidden.id }),
        [],
        'no page shows it',
      )
      assert.deepEqual(
        await openIncidentFromCheck(t.ctx, account, {
          ...trigger,
          serviceId: '00000000-0000-4000-8000-000000000000',
        }),
        [],
      )

      nowMs = T0 + 7 * 60_000
      const resolved = await resolveIncidentFromCheck(t.ctx, account)
      assert.deepEqual(resolved.sort(), opened.map((i) => i.id).sort())
      for (const incident of opened) {
        const now = json(
          await t.call({
            method: 'GET',
            url: `/v3/status-pages/${incident.statusPageId}/incidents/${incident.id}`,
          }),
        )
        assert.equal(now.lastUpdateStatus, 'RESOLVED')
        assert.equal(now.duration, 7 * 60)
        assert.deepEqual(
          now.componentImpacts.map((c: any) => [c.status, c.endedAt]),
          [['OPERATIONAL', new Date(nowMs).toISOString()]],
        )
      }
      assert.deepEqual(await resolveIncidentFromCheck(t.ctx, account), [], 'nothing left to resolve')

      // The next failure opens fresh incidents.
      nowMs = T0 + 60 * 60_000
      assert.equal(
        (await openIncidentFromCheck(t.ctx, account, { ...trigger, severity: 'CRITICAL' })).length,
        2,
      )
    })

    test('taking triggerIncident off the check resolves the incidents it opened, saying why', async () => {
      nowMs = T0 + 4 * 3_600_000
      const { service, check, trigger, opening } = await triggeringCheck('Login', {
        severity: 'MINOR',
        name: 'Login is slow',
        description: 'Logins take long.',
      })
      const page = await pageShowing(service.id, 'untriggered')
      const [incident] = await openIncidentFromCheck(t.ctx, opening, trigger)
      assert.ok(incident)
      const renamed = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { name: 'login v2' },
      })
      assert.equal(renamed.statusCode, 200, renamed.body)
      const still = json(
        await t.call({ method: 'GET', url: `/v3/status-pages/${page.id}/incidents/${incident.id}` }),
      )
      assert.equal(still.lastUpdateStatus, 'INVESTIGATING', 'other edits leave it open')

      nowMs += 60_000
      const off = await t.call({
        method: 'PUT',
        url: `/v1/checks/${check.id}`,
        payload: { triggerIncident: null },
      })
      assert.equal(off.statusCode, 200, off.body)
      const after = json(
        await t.call({ method: 'GET', url: `/v3/status-pages/${page.id}/incidents/${incident.id}` }),
      )
      assert.equal(after.lastUpdateStatus, 'RESOLVED')
      assert.match(
        after.incidentUpdates.find((u: any) => u.status === 'RESOLVED')?.description,
        /check that opened this incident no longer opens incidents/,
      )
    })

    test('deleting the check resolves the incidents it opened, saying why', async () => {
      nowMs = T0 + 2 * 3_600_000
      const { service, check, trigger, opening } = await triggeringCheck('Search', {
        severity: 'MAJOR',
        name: 'Search is down',
        description: 'Searches fail.',
      })
      json(
        await t.call({
          method: 'PUT',
          url: `/v1/status-pages/services/${service.id}`,
          payload: { name: 'Search', checkIds: [check.id] },
        }),
      )
      const page = await pageShowing(service.id, 'deleted-trigger')
      const [incident] = await openIncidentFromCheck(t.ctx, opening, trigger)
      assert.ok(incident)

      nowMs += 5 * 60_000
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })).statusCode, 204)
      const after = json(
        await t.call({ method: 'GET', url: `/v3/status-pages/${page.id}/incidents/${incident.id}` }),
      )
      assert.equal(after.lastUpdateStatus, 'RESOLVED')
      assert.equal(after.duration, 5 * 60)
      assert.match(
        after.incidentUpdates.find((u: any) => u.status === 'RESOLVED')?.description,
        /check that opened this incident was deleted/,
      )
      assert.deepEqual(
        after.componentImpacts.map((c: any) => [c.status, c.endedAt]),
        [['OPERATIONAL', new Date(nowMs).toISOString()]],
      )
    })

    /**
     * A check with `triggerIncident` whose incidents on two pages are open, the first of them being
     * deleted when `change` (of the check) is sent: on PostgreSQL the deletion waits on a lock the test
     * holds, the change comes then, and finds the incident still there. Answers both answers.
     */
    async function incidentDeletedWhile(name: string, change: (checkId: string) => CallOptions) {
      const { service, check, trigger, opening } = await triggeringCheck(name, {
        severity: 'MAJOR',
        name: `${name} is down`,
        description: 'It fails.',
      })
      for (const url of [`${name}-public`, `${name}-internal`]) await pageShowing(service.id, url)
      const [deleted, kept] = await openIncidentFromCheck(t.ctx, opening, trigger)
      assert.ok(deleted && kept)
      nowMs += 60_000
      const answers = await inTurnWhileHeld(
        t.ctx,
        (tx) => sql`select 1 from incidents where id = ${deleted.id} for update`.execute(tx),
        [
          () =>
            t.call({
              method: 'DELETE',
              url: `/v3/status-pages/${deleted.statusPageId}/incidents/${deleted.id}`,
            }),
          () => t.call(change(check.id)),
        ],
      )
      return { checkId: check.id as string, answers, deleted, kept }
    }
    /** The deleted incident is gone, the other resolved by the check's change. */
    async function assertOtherResolved({ deleted, kept }: { deleted: Incident; kept: Incident }) {
      const incidentOf = (incident: Incident) =>
        t.call({ method: 'GET', url: `/v3/status-pages/${incident.statusPageId}/incidents/${incident.id}` })
      assert.equal((await incidentOf(deleted)).statusCode, 404)
      const resolved = json(await incidentOf(kept))
      assert.equal(resolved.lastUpdateStatus, 'RESOLVED')
      assert.deepEqual(
        resolved.componentImpacts.map((c: any) => [c.status, c.endedAt]),
        [['OPERATIONAL', new Date(nowMs).toISOString()]],
      )
    }
    const statusesOf = (answers: Awaited<ReturnType<TestApp['call']>>[]) => [
      answers.map((res) => res.statusCode),
      answers.map((res) => res.body).join('\n'),
    ]

    test('an incident deleted while the check that opened it is saved without triggerIncident: 200, saved', async () => {
      nowMs = T0 + 6 * 3_600_000
      const raced = await incidentDeletedWhile('cart', (id) => ({
        method: 'PUT',
        url: `/v1/checks/${id}`,
        payload: { triggerIncident: null },
      }))
      const [statuses, bodies] = statusesOf(raced.answers)
      assert.deepEqual(statuses, [204, 200], bodies as string)
      assert.equal(
        json(await t.call({ method: 'GET', url: `/v1/checks/${raced.checkId}` })).triggerIncident,
        null,
      )
      await assertOtherResolved(raced)
    })

    test('an incident deleted while the check that opened it is deleted: 204, the check gone', async () => {
      nowMs = T0 + 8 * 3_600_000
      const raced = await incidentDeletedWhile('basket', (id) => ({
        method: 'DELETE',
        url: `/v1/checks/${id}`,
      }))
      const [statuses, bodies] = statusesOf(raced.answers)
      assert.deepEqual(statuses, [204, 204], bodies as string)
      assert.equal((await t.call({ method: 'GET', url: `/v1/checks/${raced.checkId}` })).statusCode, 404)
      await assertOtherResolved(raced)
    })
  })
}
