import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

/**
 * A check deleted while a service is saved with it, and a service deleted while a check on it is: on
 * PostgreSQL the requests run at once, in the order each test forces (see inTurnWhileHeld).
 */
for (const engine of testEngines()) {
  describe(`services and checks deleted at the same time on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    /** A check with one failed run (a closed port), so that a service keeps days of it. */
    const ranCheck = async (name: string) => {
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/tcp',
        payload: { name, activated: false, request: { hostname: '127.0.0.1', port: 9 } },
      })
      assert.equal(created.statusCode, 201, created.body)
      const { id } = json(created)
      const run = await t.call({ method: 'POST', url: `/v1/checks/${id}/trigger` })
      assert.equal(run.statusCode, 200, run.body)
      return id as string
    }
    const service = async (name: string, checkIds: string[]) => {
      const res = await t.call({
        method: 'POST',
        url: '/v1/status-pages/services',
        payload: { name, checkIds },
      })
      assert.equal(res.statusCode, 200, res.body)
      return json(res).id as string
    }
    const serviceOf = async (id: string) =>
      json(await t.call({ method: 'GET', url: `/v1/status-pages/services/${id}` }))
    /** [total, failed] of each day `serviceId` kept of `checkId`. */
    const keptDays = async (serviceId: string, checkId: string) =>
      (
        await t.store.db
          .selectFrom('status_page_service_days')
          .select(['total', 'failed'])
          .where('service_id', '=', serviceId)
          .where('check_id', '=', checkId)
          .execute()
      ).map((day) => [Number(day.total), Number(day.failed)])
    /** Holds the deletion of a check after it read its services (its cascade reaches check_tags first). */
    const holdingCheckDeletes = holdingTable('check_tags')

    test('a check deleted while services are saved with it: they wait, answer 400 naming it and save nothing', async () => {
      const gone = await ranCheck('gone')
      const other = await ranCheck('other')
      const kept = await service('Keeps it', [gone, other])
      const adds = await service('Adds it', [other])
      const put = (id: string, name: string, checkIds: string[]) => () =>
        t.call({ method: 'PUT', url: `/v1/status-pages/services/${id}`, payload: { name, checkIds } })
      const answers = await inTurnWhileHeld(t.ctx, holdingCheckDeletes, [
        () => t.call({ method: 'DELETE', url: `/v1/checks/${gone}` }),
        // Kept on a service that loses another check: it unlinks both, then links this one again.
        put(kept, 'Renamed', [gone]),
        put(adds, 'Renamed', [other, gone]),
        () =>
          t.call({
            method: 'POST',
            url: '/v1/status-pages/services',
            payload: { name: 'New', checkIds: [gone] },
          }),
      ])
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [204, 400, 400, 400],
        answers.map((res) => res.body).join('\n'),
      )
      assert.deepEqual(
        answers.slice(1).map((res) => json(res).message),
        [
          `body.checkIds.0 unknown check ${gone}`,
          `body.checkIds.1 unknown check ${gone}`,
          `body.checkIds.0 unknown check ${gone}`,
        ],
      )
      assert.deepEqual(
        [await serviceOf(kept), await serviceOf(adds)].map((s) => [s.name, s.checkIds]),
        [
          ['Keeps it', [other]],
          ['Adds it', [other]],
        ],
      )
      const created = await t.store.db
        .selectFrom('status_page_services')
        .select('id')
        .where('name', '=', 'New')
        .execute()
      assert.deepEqual(created, [])
      // The deletion kept what the check showed on the service it was on.
      assert.deepEqual(await keptDays(kept, gone), [[1, 1]])
    })

    test('a check deleted after a service update put it on the service: the deletion waits and the service keeps its days', async () => {
      const check = await ranCheck('added then deleted')
      const svc = await service('Gets it', [])
      const answers = await inTurnWhileHeld(
        t.ctx,
        // Holds the update where it relinks the service's checks.
        holdingTable('status_page_service_checks'),
        [
          () =>
            t.call({
              method: 'PUT',
              url: `/v1/status-pages/services/${svc}`,
              payload: { name: 'Gets it', checkIds: [check] },
            }),
          () => t.call({ method: 'DELETE', url: `/v1/checks/${check}` }),
        ],
      )
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [200, 204],
        answers.map((res) => res.body).join('\n'),
      )
      assert.deepEqual((await serviceOf(svc)).checkIds, [])
      assert.deepEqual(await keptDays(svc, check), [[1, 1]])
    })

    test('a service deleted while status pages are saved showing it: 400 when the deletion went first, 409 when a page did', async () => {
      const pageBody = (slug: string, serviceId: string) => ({
        name: slug,
        url: slug,
        cards: [{ name: 'Core', services: [{ id: serviceId }] }],
      })
      const gone = await service('Gone', [])
      const other = await service('Other', [])
      const created = await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: pageBody('shows-other', other),
      })
      assert.equal(created.statusCode, 201, created.body)
      const shown = json(created)
      const first = await inTurnWhileHeld(
        t.ctx,
        // Holds the service's deletion in its cascade, past the service's row.
        holdingTable('incident_component_impacts'),
        [
          () => t.call({ method: 'DELETE', url: `/v1/status-pages/services/${gone}` }),
          () => t.call({ method: 'POST', url: '/v3/status-pages', payload: pageBody('shows-gone', gone) }),
          () =>
            t.call({
              method: 'PUT',
              url: `/v3/status-pages/${shown.id}`,
              payload: pageBody('renamed', gone),
            }),
        ],
      )
      assert.deepEqual(
        first.map((res) => res.statusCode),
        [204, 400, 400],
        first.map((res) => res.body).join('\n'),
      )
      assert.deepEqual(
        first.slice(1).map((res) => json(res).message),
        Array(2).fill(`body.cards.0.services.0.id unknown service ${gone}`),
      )
      const page = json(await t.call({ method: 'GET', url: `/v3/status-pages/${shown.id}` }))
      assert.deepEqual(
        [page.url, page.cards[0].services.map((s: { id: string }) => s.id)],
        ['shows-other', [other]],
      )

      const busy = await service('Busy', [])
      const second = await inTurnWhileHeld(
        t.ctx,
        // Holds the page's save where it writes its cards.
        holdingTable('status_page_cards'),
        [
          () =>
            t.call({
              method: 'PUT',
              url: `/v3/status-pages/${shown.id}`,
              payload: pageBody('shows-busy', busy),
            }),
          () => t.call({ method: 'DELETE', url: `/v1/status-pages/services/${busy}` }),
        ],
      )
      assert.deepEqual(
        second.map((res) => res.statusCode),
        [200, 409],
        second.map((res) => res.body).join('\n'),
      )
      assert.equal(
        json(second[1]!).message,
        `Service ${busy} is shown on 1 status page(s): take it off their cards first`,
      )
    })

    test('a service deleted while a check on it is: both deletions go through', async () => {
      const check = await ranCheck('on a deleted service')
      const svc = await service('Deleted', [check])
      const answers = await inTurnWhileHeld(
        t.ctx,
        // Holds the service's deletion in its cascade, past the service's row.
        holdingTable('incident_component_impacts'),
        [
          () => t.call({ method: 'DELETE', url: `/v1/status-pages/services/${svc}` }),
          () => t.call({ method: 'DELETE', url: `/v1/checks/${check}` }),
        ],
      )
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [204, 204],
        answers.map((res) => res.body).join('\n'),
      )
      assert.equal((await t.call({ method: 'GET', url: `/v1/checks/${check}` })).statusCode, 404)
      assert.deepEqual(await keptDays(svc, check), [])
    })
  })
}
