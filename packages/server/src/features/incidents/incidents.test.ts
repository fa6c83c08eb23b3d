import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { sql } from 'kysely'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type Tenant, type TestApp } from '../../testing/test-app.ts'
import * as accounts from '../accounts/accounts.service.ts'

const T0 = Date.parse('2026-11-22T12:00:00.000Z')
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString()

for (const engine of testEngines()) {
  describe(`incidents on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = T0
    let stranger: Tenant
    let pageId = ''
    let otherPageId = ''
    let api: { id: string }
    let web: { id: string }
    let db: { id: string }
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      const other = await accounts.createAccount(t.ctx, { name: 'Other' })
      stranger = await t.addUser('OWNER', other.id)
      const service = async (name: string) =>
        json(await t.call({ method: 'POST', url: '/v1/status-pages/services', payload: { name } }))
      api = await service('API')
      web = await service('Web')
      db = await service('Database')
      const page = await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: {
          name: 'Acme',
          url: 'acme-incidents',
          cards: [{ name: 'All', services: [{ id: api.id }, { id: web.id }] }],
        },
      })
      pageId = json(page).id
      otherPageId = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: {
            name: 'Other',
            url: 'other-incidents',
            cards: [{ name: 'DB', services: [{ id: db.id }] }],
          },
        }),
      ).id
    })
    beforeEach(() => {
      nowMs = T0
    })
    after(() => t.close())

    const create = (payload: object, page = pageId) =>
      t.call({ method: 'POST', url: `/v3/status-pages/${page}/incidents`, payload })
    const createOk = async (payload: object) => {
      const res = await create(payload)
      assert.equal(res.statusCode, 201, res.body)
      return json(res)
    }
    const get = async (id: string) =>
      json(await t.call({ method: 'GET', url: `/v3/status-pages/${pageId}/incidents/${id}` }))
    const post = (incidentId: string, payload: object) =>
      t.call({ method: 'POST', url: `/v1/incidents/${incidentId}/updates`, payload })
    const postOk = async (incidentId: string, payload: object) => {
      const res = await post(incidentId, payload)
      assert.equal(res.statusCode, 201, res.body)
      return json(res)
    }
    const put = (incidentId: string, payload: object) =>
      t.call({ method: 'PUT', url: `/v3/status-pages/${pageId}/incidents/${incidentId}`, payload })

    test('create with a first update: the spec’s resource plus severity, start and impacts', async () => {
      const incident = await createOk({
        name: 'API errors',
        severity: 'MAJOR',
        componentImpacts: [{ componentId: api.id, status: 'MAJOR_OUTAGE' }],
        incidentUpdates: [{ description: 'We are looking into it', status: 'INVESTIGATING' }],
      })
      assert.match(incident.id, /^[0-9a-f-]{36}$/)
      const [update] = incident.incidentUpdates
      assert.deepEqual(incident, {
        id: incident.id,
        statusPageId: pageId,
        name: 'API errors',
        severity: 'MAJOR',
        lastUpdateStatus: 'INVESTIGATING',
        duration: null,
        startedAt: at(0),
        resolvedAt: null,
        componentImpacts: [{ componentId: api.id, status: 'MAJOR_OUTAGE', startedAt: at(0), endedAt: null }],
        incidentUpdates: [
          {
            id: update.id,
            incidentId: incident.id,
            description: 'We are looking into it',
            status: 'INVESTIGATING',
            publicIncidentUpdateDate: at(0),
            notifySubscribers: false,
            created_at: at(0),
            updated_at: at(0),
          },
        ],
        created_at: at(0),
        updated_at: at(0),
      })
      assert.deepEqual(await get(incident.id), incident)
      const plain = await createOk({
        name: 'Plain',
        incidentUpdates: [{ description: 'x', status: 'IDENTIFIED' }],
      })
      assert.equal(plain.severity, null)
      assert.deepEqual(plain.componentImpacts, [])

      const list = await t.call({ method: 'GET', url: `/v3/status-pages/${pageId}/incidents?limit=1` })
      assert.equal(json(list).length, 1)
      assert.match(String(list.headers['content-range']), /^items 0-0\/\d+$/)
    })

    test('bad bodies are 400 naming the field: no update, long names, unknown or repeated components', async () => {
      const bad = async (payload: object, path: string) => {
        const res = await create(payload)
        assert.equal(res.statusCode, 400, res.body)
        assert.equal(json(res).attributes.errors[0].path, path)
      }
      const update = { description: 'x', status: 'INVESTIGATING' }
      await bad({ name: 'x', incidentUpdates: [] }, 'body.incidentUpdates')
      await bad({ name: 'x' }, 'body.incidentUpdates')
      await bad({ name: 'x'.repeat(256), incidentUpdates: [update] }, 'body.name')
      await bad(
        { name: 'x', incidentUpdates: [{ ...update, status: 'FIXED' }] },
        'body.incidentUpdates.0.status',
      )
      await bad(
        { name: 'x', incidentUpdates: [{ ...update, description: '' }] },
        'body.incidentUpdates.0.description',
      )
      await bad(
        { name: 'x', incidentUpdates: [update, { ...update, publicIncidentUpdateDate: 'yesterday' }] },
        'body.incidentUpdates.1.publicIncidentUpdateDate',
      )
      await bad(
        { name: 'x', incidentUpdates: [{ ...update, publicIncidentUpdateDate: at(6) }] },
        'body.incidentUpdates.0.publicIncidentUpdateDate',
      )
      await bad(
        {
          name: 'x',
          incidentUpdates: [update],
          componentImpacts: [{ componentId: db.id, status: 'MAJOR_OUTAGE' }],
        },
        'body.componentImpacts.0.componentId',
      )
      await bad(
        {
          name: 'x',
          incidentUpdates: [update],
          componentImpacts: [
            { componentId: api.id, status: 'MAJOR_OUTAGE' },
            { componentId: api.id, status: 'PARTIAL_OUTAGE' },
          ],
        },
        'body.componentImpacts.1.componentId',
      )
      await bad(
        { name: 'x', incidentUpdates: [update], componentImpacts: [{ componentId: api.id, status: 'DOWN' }] },
        'body.componentImpacts.0.status',
      )
      await bad({ name: 'x', incidentUpdates: [update], extra: 1 }, 'body.extra')
      assert.equal((await create({ name: 'x'.repeat(255), incidentUpdates: [update] })).statusCode, 201)
      assert.equal(
        (await create({ name: 'x', incidentUpdates: [{ ...update, publicIncidentUpdateDate: at(4) }] }))
          .statusCode,
        201,
      )
    })

    test('a backdated update sets the start; lastUpdateStatus follows the public date, not posting order', async () => {
      const incident = await createOk({
        name: 'Backdated',
        componentImpacts: [{ componentId: web.id, status: 'PARTIAL_OUTAGE' }],
        incidentUpdates: [
          { description: 'Slow pages', status: 'INVESTIGATING', publicIncidentUpdateDate: at(-90) },
        ],
      })
      assert.equal(incident.startedAt, at(-90))
      assert.equal(incident.componentImpacts[0].startedAt, at(-90), 'impacts begin with the incident')
      nowMs = T0 + 60_000
      await postOk(incident.id, { description: 'Found it', status: 'IDENTIFIED' })
      const earlier = await postOk(incident.id, {
        description: 'First reports',
        status: 'INVESTIGATING',
        publicIncidentUpdateDate: '2026-11-22T09:00:00+00:00',
      })
      assert.equal(earlier.publicIncidentUpdateDate, at(-180), 'dates are stored in UTC')
      let now = await get(incident.id)
      assert.equal(now.startedAt, at(-180))
      assert.equal(now.lastUpdateStatus, 'IDENTIFIED')
      assert.deepEqual(
        now.incidentUpdates.map((u: any) => u.description),
        ['First reports', 'Slow pages', 'Found it'],
        'oldest first',
      )
      // A RESOLVED update dated before the latest one does not resolve the incident.
      await postOk(incident.id, {
        description: 'Old note',
        status: 'RESOLVED',
        publicIncidentUpdateDate: at(-30),
      })
      now = await get(incident.id)
      assert.equal(now.lastUpdateStatus, 'IDENTIFIED')
      assert.equal(now.duration, null)
      assert.equal(now.updated_at, at(1))
    })

    test('duration: null while ongoing, first to resolving update once resolved, follow-ups, reopen, edit, delete', async () => {
      const incident = await createOk({
        name: 'Durations',
        incidentUpdates: [
          { description: 'Down', status: 'INVESTIGATING', publicIncidentUpdateDate: at(-60) },
        ],
      })
      const monitoring = await postOk(incident.id, {
        description: 'Fix out',
        status: 'MONITORING',
        publicIncidentUpdateDate: at(-30),
      })
      assert.equal((await get(incident.id)).duration, null)
      const resolved = await postOk(incident.id, {
        description: 'Fixed',
        status: 'RESOLVED',
        publicIncidentUpdateDate: at(-10),
      })
      let now = await get(incident.id)
      assert.equal(now.lastUpdateStatus, 'RESOLVED')
      assert.equal(now.duration, 50 * 60)
      assert.equal(now.resolvedAt, at(-10))

      // A later RESOLVED follow-up (a post-mortem) doesn't move the resolution.
      const followUp = await postOk(incident.id, { description: 'Post-mortem', status: 'RESOLVED' })
      assert.equal((await get(incident.id)).duration, 50 * 60)

      // Editing the resolving update's date recomputes; a missing date keeps the stored one.
      const edited = await t.call({
        method: 'PUT',
        url: `/v1/incidents/${incident.id}/updates/${resolved.id}`,
        payload: { description: 'Fixed for real', status: 'RESOLVED', publicIncidentUpdateDate: at(-20) },
      })
      assert.equal(edited.statusCode, 200, edited.body)
      assert.equal(json(edited).description, 'Fixed for real')
      assert.equal((await get(incident.id)).duration, 40 * 60)
      const kept = json(
        await t.call({
          method: 'PUT',
          url: `/v1/incidents/${incident.id}/updates/${resolved.id}`,
          payload: { description: 'Fixed.' },
        }),
      )
      // Only description is required (as the hosted API's edit): status and date stay.
      assert.deepEqual([kept.description, kept.status], ['Fixed.', 'RESOLVED'])
      assert.equal(kept.publicIncidentUpdateDate, at(-20))

      // Deleting the resolving update leaves the follow-up resolving it (at now).
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/incidents/${incident.id}/updates/${resolved.id}` }))
          .statusCode,
        204,
      )
      now = await get(incident.id)
      assert.equal(now.duration, 60 * 60)
      assert.equal(now.resolvedAt, at(0))

      // A new unresolved update reopens it; resolving again counts from the first update.
      nowMs = T0 + 5 * 60_000
      await postOk(incident.id, { description: 'Back again', status: 'INVESTIGATING' })
      now = await get(incident.id)
      assert.equal(now.lastUpdateStatus, 'INVESTIGATING')
      assert.equal(now.duration, null)
      assert.equal(now.resolvedAt, null)
      nowMs = T0 + 15 * 60_000
      await postOk(incident.id, { description: 'Gone', status: 'RESOLVED' })
      assert.equal((await get(incident.id)).duration, 75 * 60)

      // Editing the first update's date moves the start and so the duration.
      const first = now.incidentUpdates[0]
      await t.call({
        method: 'PUT',
        url: `/v1/incidents/${incident.id}/updates/${first.id}`,
        payload: { description: 'Down', status: 'INVESTIGATING', publicIncidentUpdateDate: at(-45) },
      })
      now = await get(incident.id)
      assert.equal(now.startedAt, at(-45))
      assert.equal(now.duration, 60 * 60)

      // With the middle updates gone, the last RESOLVED one still counts from the (moved) first update.
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/incidents/${incident.id}/updates/${monitoring.id}` }))
          .statusCode,
        204,
      )
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/incidents/${incident.id}/updates/${followUp.id}` }))
          .statusCode,
        204,
      )
      now = await get(incident.id)
      assert.deepEqual(
        now.incidentUpdates.map((u: any) => u.status),
        ['INVESTIGATING', 'INVESTIGATING', 'RESOLVED'],
      )
      assert.equal(now.duration, 60 * 60)
    })

    test('an incident posted already resolved lasts 0 s; its last update is deleted as the hosted API does', async () => {
      const incident = await createOk({
        name: 'Blip',
        incidentUpdates: [
          { description: 'Short blip, resolved', status: 'RESOLVED', publicIncidentUpdateDate: at(-5) },
        ],
      })
      assert.equal(incident.duration, 0)
      assert.equal(incident.lastUpdateStatus, 'RESOLVED')
      const [only] = incident.incidentUpdates
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/incidents/${incident.id}/updates/nope` })).statusCode,
        404,
      )
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/incidents/nope/updates/${only.id}` })).statusCode,
        404,
      )
      assert.equal((await get(incident.id)).incidentUpdates.length, 1)
      const deleted = await t.call({
        method: 'DELETE',
        url: `/v1/incidents/${incident.id}/updates/${only.id}`,
      })
      assert.equal(deleted.statusCode, 204, deleted.body)
      // No update left: it stays what its updates last said.
      const bare = await get(incident.id)
      assert.deepEqual([bare.incidentUpdates, bare.lastUpdateStatus, bare.duration], [[], 'RESOLVED', 0])
      const again = await t.call({
        method: 'DELETE',
        url: `/v1/incidents/${incident.id}/updates/${only.id}`,
      })
      assert.equal(again.statusCode, 404)
      const reopened = await t.call({
        method: 'POST',
        url: `/v1/incidents/${incident.id}/updates`,
        payload: { description: 'It is back', status: 'INVESTIGATING' },
      })
      assert.equal(reopened.statusCode, 201, reopened.body)
      assert.equal((await get(incident.id)).lastUpdateStatus, 'INVESTIGATING', 'a new update sets it again')

      // Two updates posted at once keep their order.
      const pair = await createOk({
        name: 'Pair',
        incidentUpdates: [
          { description: 'one', status: 'INVESTIGATING' },
          { description: 'two', status: 'RESOLVED' },
        ],
      })
      assert.equal(pair.lastUpdateStatus, 'RESOLVED')
      assert.equal(pair.duration, 0)
      assert.deepEqual(
        pair.incidentUpdates.map((u: any) => u.description),
        ['one', 'two'],
      )
    })

    test('updates dated before 2000 are 400 on create, post and edit; one from 2000 resolves with its duration', async () => {
      const update = { description: 'x', status: 'INVESTIGATING' }
      const tooOld = '1999-12-31T23:59:59.999Z'
      const refused = await create({
        name: 'Ancient',
        incidentUpdates: [update, { ...update, publicIncidentUpdateDate: tooOld }],
      })
      assert.equal(refused.statusCode, 400, refused.body)
      assert.equal(json(refused).attributes.errors[0].path, 'body.incidentUpdates.1.publicIncidentUpdateDate')
      assert.equal(
        json(refused).message,
        'body.incidentUpdates.1.publicIncidentUpdateDate must not be before 2000-01-01T00:00:00Z',
      )

      const incident = await createOk({
        name: 'Long ago',
        incidentUpdates: [{ ...update, publicIncidentUpdateDate: '2000-01-01T00:00:00Z' }],
      })
      const posted = await post(incident.id, { ...update, publicIncidentUpdateDate: '0001-01-01T00:00:00Z' })
      assert.equal(posted.statusCode, 400, posted.body)
      assert.equal(json(posted).attributes.errors[0].path, 'body.publicIncidentUpdateDate')
      const [first] = incident.incidentUpdates
      const edited = await t.call({
        method: 'PUT',
        url: `/v1/incidents/${incident.id}/updates/${first.id}`,
        payload: { ...update, publicIncidentUpdateDate: '1950-01-01T00:00:00Z' },
      })
      assert.equal(edited.statusCode, 400, edited.body)
      assert.equal(json(edited).attributes.errors[0].path, 'body.publicIncidentUpdateDate')

      await postOk(incident.id, { description: 'Fixed', status: 'RESOLVED' })
      const resolved = await get(incident.id)
      assert.equal(resolved.startedAt, '2000-01-01T00:00:00.000Z')
      assert.equal(resolved.lastUpdateStatus, 'RESOLVED')
      assert.equal(resolved.duration, (T0 - Date.parse('2000-01-01T00:00:00Z')) / 1000)
    })

    test('editing an update keeps the date and notifySubscribers it leaves out', async () => {
      const incident = await createOk({
        name: 'Announced',
        incidentUpdates: [
          {
            description: 'Mailed to subscribers',
            status: 'INVESTIGATING',
            notifySubscribers: true,
            publicIncidentUpdateDate: at(-10),
          },
        ],
      })
      const [update] = incident.incidentUpdates
      const edit = (payload: object) =>
        t.call({ method: 'PUT', url: `/v1/incidents/${incident.id}/updates/${update.id}`, payload })
      const kept = await edit({ description: 'Typo fixed', status: 'INVESTIGATING' })
      assert.equal(kept.statusCode, 200, kept.body)
      assert.equal(json(kept).notifySubscribers, true)
      assert.equal(json(kept).publicIncidentUpdateDate, at(-10))
      assert.equal((await get(incident.id)).incidentUpdates[0].notifySubscribers, true)
      const off = await edit({ description: 'Typo fixed', status: 'INVESTIGATING', notifySubscribers: false })
      assert.equal(json(off).notifySubscribers, false)
      // Posting an update without the flag still means false.
      assert.equal(
        (await postOk(incident.id, { description: 'More', status: 'IDENTIFIED' })).notifySubscribers,
        false,
      )
    })

    test('resolving ends the open impacts with the incident; reopening reopens them', async () => {
      const incident = await createOk({
        name: 'Database down',
        componentImpacts: [
          { componentId: api.id, status: 'MAJOR_OUTAGE' },
          { componentId: web.id, status: 'PARTIAL_OUTAGE' },
        ],
        incidentUpdates: [{ description: 'Down', status: 'INVESTIGATING' }],
      })
      const name = (id: string) => (id === api.id ? 'api' : 'web')
      const impacts = (i: any) =>
        i.componentImpacts
          .map((c: any) => [name(c.componentId), c.status, c.startedAt, c.endedAt])
          .sort((a: string[], b: string[]) => a.join().localeCompare(b.join()))
      nowMs = T0 + 5 * 60_000
      await put(incident.id, {
        name: 'Database down',
        componentImpacts: [{ componentId: api.id, status: 'MAJOR_OUTAGE' }],
      })
      nowMs = T0 + 15 * 60_000
      await postOk(incident.id, {
        description: 'Fixed',
        status: 'RESOLVED',
        publicIncidentUpdateDate: at(12),
      })
      const resolved = await get(incident.id)
      assert.equal(resolved.resolvedAt, at(12))
      assert.deepEqual(impacts(resolved), [
        ['api', 'OPERATIONAL', at(0), at(12)],
        ['web', 'OPERATIONAL', at(0), at(5)],
      ])
      const listed = json(await t.call({ method: 'GET', url: `/v3/status-pages/${pageId}/incidents` }))
      assert.deepEqual(impacts(listed.find((i: any) => i.id === incident.id)), impacts(resolved))

      nowMs = T0 + 20 * 60_000
      await postOk(incident.id, { description: 'Back again', status: 'INVESTIGATING' })
      assert.deepEqual(impacts(await get(incident.id)), [
        ['api', 'MAJOR_OUTAGE', at(0), null],
        ['web', 'OPERATIONAL', at(0), at(5)],
      ])
    })

    test('PUT renames and reconciles impacts: listed take their status, omitted become OPERATIONAL', async () => {
      const incident = await createOk({
        name: 'Outage',
        componentImpacts: [
          { componentId: api.id, status: 'MAJOR_OUTAGE' },
          { componentId: web.id, status: 'PARTIAL_OUTAGE' },
        ],
        incidentUpdates: [{ description: 'Down', status: 'INVESTIGATING' }],
      })
      const impactsOf = (i: any, id: string) =>
        i.componentImpacts
          .filter((c: any) => c.componentId === id)
          .map((c: any) => [c.status, c.startedAt, c.endedAt])

      nowMs = T0 + 10 * 60_000
      const res = await put(incident.id, {
        name: 'API outage',
        componentImpacts: [{ componentId: api.id, status: 'DEGRADED_PERFORMANCE' }],
      })
      assert.equal(res.statusCode, 200, res.body)
      let now = json(res)
      assert.equal(now.name, 'API outage')
      assert.deepEqual(impactsOf(now, api.id), [['DEGRADED_PERFORMANCE', at(0), null]])
      assert.deepEqual(impactsOf(now, web.id), [['OPERATIONAL', at(0), at(10)]])
      assert.equal(now.updated_at, at(10))

      nowMs = T0 + 20 * 60_000
      now = json(
        await put(incident.id, {
          name: 'API outage',
          componentImpacts: [{ componentId: web.id, status: 'MAJOR_OUTAGE' }],
        }),
      )
      assert.deepEqual(impactsOf(now, api.id), [['OPERATIONAL', at(0), at(20)]])
      assert.deepEqual(
        impactsOf(now, web.id),
        [
          ['OPERATIONAL', at(0), at(10)],
          ['MAJOR_OUTAGE', at(20), null],
        ],
        'degrading again opens a new impact',
      )

      nowMs = T0 + 30 * 60_000
      now = json(await put(incident.id, { name: 'Renamed only' }))
      assert.equal(now.name, 'Renamed only')
      assert.deepEqual(
        impactsOf(now, web.id).at(-1),
        ['MAJOR_OUTAGE', at(20), null],
        'no componentImpacts: untouched',
      )

      now = json(
        await put(incident.id, {
          name: 'Renamed only',
          componentImpacts: [
            { componentId: web.id, status: 'OPERATIONAL' },
            { componentId: api.id, status: 'OPERATIONAL' },
          ],
        }),
      )
      assert.deepEqual(impactsOf(now, web.id).at(-1), ['OPERATIONAL', at(20), at(30)])
      assert.equal(
        now.componentImpacts.length,
        3,
        'an operational component without an open impact gets none',
      )
      now = json(await put(incident.id, { name: 'All clear', componentImpacts: [] }))
      assert.equal(now.componentImpacts.filter((c: any) => c.endedAt === null).length, 0)

      assert.equal((await put(incident.id, { name: 'x'.repeat(256) })).statusCode, 400)
      assert.equal((await put(incident.id, {})).statusCode, 400)
      assert.equal(
        (
          await put(incident.id, {
            name: 'x',
            componentImpacts: [{ componentId: db.id, status: 'MAJOR_OUTAGE' }],
          })
        ).statusCode,
        400,
      )
      const wrongPage = await t.call({
        method: 'PUT',
        url: `/v3/status-pages/${otherPageId}/incidents/${incident.id}`,
        payload: { name: 'x' },
      })
      assert.equal(wrongPage.statusCode, 404)
    })

    test('an incident deleted while updates are posted to it or it is renamed: 404, never 409 or 500', async () => {
      const incident = await createOk({
        name: 'Going away',
        incidentUpdates: [{ description: 'Looking', status: 'INVESTIGATING' }],
      })
      // The deletion waits on a lock the test holds; the writes find the incident, then wait behind it.
      const answers = await inTurnWhileHeld(
        t.ctx,
        (tx) => sql`select 1 from incidents where id = ${incident.id} for update`.execute(tx),
        [
          () => t.call({ method: 'DELETE', url: `/v3/status-pages/${pageId}/incidents/${incident.id}` }),
          () => post(incident.id, { description: 'Fixed', status: 'RESOLVED' }),
          () =>
            put(incident.id, {
              name: 'Renamed',
              componentImpacts: [{ componentId: api.id, status: 'MAJOR_OUTAGE' }],
            }),
        ],
      )
      assert.deepEqual(
        answers.map((res) => [res.statusCode, res.body && json(res).message]),
        [
          [204, ''],
          [404, `Incident ${incident.id} not found`],
          [404, `Incident ${incident.id} not found`],
        ],
      )
    })

    test('a page deleted while an incident is opened on it: 404, nothing saved', async () => {
      const doomed = json(
        await t.call({
          method: 'POST',
          url: '/v3/status-pages',
          payload: {
            name: 'Doomed',
            url: 'doomed-incidents',
            cards: [{ name: 'All', services: [{ id: api.id }] }],
          },
        }),
      )
      // The page's deletion waits where it deletes its cards; the incident's creation found the page.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('status_page_cards'), [
        () => t.call({ method: 'DELETE', url: `/v3/status-pages/${doomed.id}` }),
        () =>
          create(
            {
              name: 'On a doomed page',
              componentImpacts: [{ componentId: api.id, status: 'MAJOR_OUTAGE' }],
              incidentUpdates: [{ description: 'Looking', status: 'INVESTIGATING' }],
            },
            doomed.id,
          ),
      ])
      assert.deepEqual(
        answers.map((res) => [res.statusCode, res.body && json(res).message]),
        [
          [204, ''],
          [404, `Status page ${doomed.id} not found`],
        ],
      )
      const incidents = await t.store.db
        .selectFrom('incidents')
        .select('id')
        .where('name', '=', 'On a doomed page')
        .execute()
      assert.deepEqual(incidents, [])
    })

    test('tenancy and roles: another account sees 404, READ_ONLY cannot write', async () => {
      const incident = await createOk({
        name: 'Private',
        incidentUpdates: [{ description: 'x', status: 'INVESTIGATING' }],
      })
      const [update] = incident.incidentUpdates
      const as = stranger
      assert.equal(
        (await t.call({ method: 'GET', url: `/v3/status-pages/${pageId}/incidents/${incident.id}`, as }))
          .statusCode,
        404,
      )
      assert.equal(
        (await t.call({ method: 'GET', url: `/v3/status-pages/${pageId}/incidents`, as })).statusCode,
        404,
      )
      assert.equal(
        (
          await t.call({
            method: 'POST',
            url: `/v1/incidents/${incident.id}/updates`,
            as,
            payload: { description: 'x', status: 'RESOLVED' },
          })
        ).statusCode,
        404,
      )
      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v1/incidents/${incident.id}/updates/${update.id}`, as }))
          .statusCode,
        404,
      )
      const reader = await t.addUser('READ_ONLY')
      assert.equal(
        (
          await t.call({
            method: 'POST',
            url: `/v1/incidents/${incident.id}/updates`,
            as: reader,
            payload: { description: 'x', status: 'RESOLVED' },
          })
        ).statusCode,
        403,
      )
      assert.equal(
        (
          await t.call({
            method: 'GET',
            url: `/v3/status-pages/${pageId}/incidents/${incident.id}`,
            as: reader,
          })
        ).statusCode,
        200,
      )
      assert.equal(
        (
          await t.call({
            method: 'POST',
            url: `/v1/incidents/${incident.id}/updates`,
            payload: { description: 'x' },
          })
        ).statusCode,
        400,
      )

      assert.equal(
        (await t.call({ method: 'DELETE', url: `/v3/status-pages/${pageId}/incidents/${incident.id}` }))
          .statusCode,
        204,
      )
      assert.equal(
        (await t.call({ method: 'GET', url: `/v3/status-pages/${pageId}/incidents/${incident.id}` }))
          .statusCode,
        404,
      )
      assert.equal((await post(incident.id, { description: 'x', status: 'RESOLVED' })).statusCode, 404)
    })
  })
}
