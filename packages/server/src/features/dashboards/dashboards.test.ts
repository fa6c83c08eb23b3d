import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import {
  createTestApp,
  json,
  ownerOfAnotherAccount,
  type Tenant,
  type TestApp,
} from '../../testing/test-app.ts'

const DEFAULTS = {
  logo: null,
  favicon: null,
  link: null,
  description: null,
  width: 'FULL',
  refreshRate: 60,
  paginate: true,
  paginationRate: 60,
  sortByStatus: false,
  checksPerPage: 15,
  useTagsAndOperator: false,
  hideTags: false,
  enableIncidents: false,
  expandChecks: false,
  showHeader: true,
  showCheckRunLinks: false,
  showGroupNames: true,
  customCSS: '',
  isPrivate: false,
  showP95: true,
  showP99: true,
}

for (const engine of testEngines()) {
  describe(`dashboards and their incidents on ${engine.engine}`, () => {
    let t: TestApp
    let stranger: Tenant
    let nowMs = Date.parse('2026-11-22T10:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
      stranger = await ownerOfAnotherAccount(t)
    })
    after(() => t.close())

    const create = (payload: object, as?: Tenant) =>
      t.call({ method: 'POST', url: '/v1/dashboards', payload, as })

    test('creates with the hosted defaults, reads by id, customUrl or domain, updates partially, deletes', async () => {
      const res = await create({ header: 'Acme status', customUrl: 'acme', tags: ['prod'] })
      assert.equal(res.statusCode, 201, res.body)
      const board = json(res)
      assert.equal(typeof board.id, 'number')
      assert.match(board.dashboardId, /^[0-9a-f]{16}$/)
      assert.deepEqual(board, {
        ...DEFAULTS,
        id: board.id,
        dashboardId: board.dashboardId,
        header: 'Acme status',
        customUrl: 'acme',
        customDomain: null,
        tags: ['prod'],
        keys: [],
        created_at: '2026-11-22T10:00:00.000Z',
      })
      const read = (url: string) => t.call({ method: 'GET', url })
      assert.deepEqual(json(await read(`/v1/dashboards/${board.dashboardId}`)), board)
      assert.deepEqual(json(await read('/v1/dashboards/acme?type=customUrl')), board)
      assert.equal((await read('/v1/dashboards/acme')).statusCode, 404)

      const put = await t.call({
        method: 'PUT',
        url: `/v1/dashboards/${board.dashboardId}`,
        payload: { customDomain: 'Status.Acme.example', refreshRate: 300, isPrivate: true },
      })
      assert.equal(put.statusCode, 200, put.body)
      const updated = { ...board, customDomain: 'status.acme.example', refreshRate: 300, isPrivate: true }
      assert.deepEqual(json(put), updated)
      assert.deepEqual(json(await read('/v1/dashboards/status.acme.example?type=customDomain')), updated)

      await create({ header: 'Second', customUrl: 'second' })
      const list = await read('/v1/dashboards?limit=1&page=2')
      assert.deepEqual(
        json(list).map((d: { header: string }) => d.header),
        ['Second'],
      )
      assert.equal(list.headers['content-range'], 'items 1-1/2')

      const del = await t.call({ method: 'DELETE', url: `/v1/dashboards/${board.dashboardId}` })
      assert.equal(del.statusCode, 204)
      const gone = await read(`/v1/dashboards/${board.dashboardId}`)
      assert.equal(gone.statusCode, 404)
      assert.equal(json(gone).message, `Dashboard ${board.dashboardId} not found`)
    })

    test('refuses bad bodies with a 400 naming the field, and taken addresses with a 409', async () => {
      const message = async (payload: object) => {
        const res = await create(payload)
        assert.equal(res.statusCode, 400, res.body)
        return json(res).message as string
      }
      assert.match(await message({ customUrl: 'no-header' }), /header/)
      // Patterns are said in words, not as their regex.
      assert.equal(
        await message({ header: 'x', customUrl: 'Not A Slug' }),
        'body.customUrl must be lowercase letters, digits and -, not starting or ending with -',
      )
      assert.equal(
        await message({ header: 'x', logo: 'javascript:alert(1)' }),
        'body.logo must be an http:// or https:// URL',
      )
      assert.match(await message({ header: 'x', refreshRate: 42 }), /^body\.refreshRate /)
      assert.match(await message({ header: 'x', checksPerPage: 21 }), /^body\.checksPerPage /)
      assert.match(await message({ header: 'x', customDomain: 'not a domain' }), /^body\.customDomain /)
      assert.match(await message({ header: 'x', keys: [{ rawKey: 'k' }] }), /^body\.keys .*not served/)
      assert.match(await message({ header: 'x', surprise: 1 }), /surprise/)

      // An empty domain is none, however many dashboards send it.
      for (const header of ['No domain', 'No domain either'])
        assert.equal(json(await create({ header, customDomain: '' })).customDomain, null)
      assert.equal((await create({ header: 'Taken', customUrl: 'taken' })).statusCode, 201)
      const again = await create({ header: 'Again', customUrl: 'taken' }, stranger)
      assert.equal(again.statusCode, 409)
      assert.deepEqual(json(again).attributes.errors, [
        { path: 'body.customUrl', message: 'taken is taken by another dashboard' },
      ])
      const page = await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: { name: 'Page', url: 'page-with-domain', customDomain: 'status.page.example', cards: [] },
      })
      assert.equal(page.statusCode, 201, page.body)
      const clash = await create({ header: 'Clash', customDomain: 'status.page.example' })
      assert.equal(clash.statusCode, 409)
      assert.equal(json(clash).attributes.errors[0].path, 'body.customDomain')
      // And the other way round: a status page can't take a dashboard's domain.
      assert.equal((await create({ header: 'Board', customDomain: 'board.acme.example' })).statusCode, 201)
      const pageClash = await t.call({
        method: 'POST',
        url: '/v3/status-pages',
        payload: { name: 'Page', url: 'page-clash', customDomain: 'board.acme.example', cards: [] },
      })
      assert.equal(pageClash.statusCode, 409)
      assert.match(json(pageClash).message, /used by a dashboard/)
    })

    test("another account's dashboard is a 404, never read, changed or deleted", async () => {
      const mine = json(await create({ header: 'Mine', customUrl: 'mine' }))
      const as = stranger
      for (const [method, payload] of [['GET'], ['PUT', { header: 'Taken' }], ['DELETE']] as const) {
        const res = await t.call({ method, url: `/v1/dashboards/${mine.dashboardId}`, payload, as })
        assert.equal(res.statusCode, 404, `${method}: ${res.body}`)
      }
      const lookup = await t.call({ method: 'GET', url: '/v1/dashboards/mine?type=customUrl', as })
      assert.equal(lookup.statusCode, 404)
      assert.equal(
        json(await t.call({ method: 'GET', url: `/v1/dashboards/${mine.dashboardId}` })).header,
        'Mine',
      )
    })

    test('incidents: the hosted body, latest or all updates, updates posted through /v1/incidents/{id}/updates', async () => {
      const board = json(
        await create({ header: 'With incidents', customUrl: 'incidents', enableIncidents: true }),
      )
      const res = await t.call({
        method: 'POST',
        url: '/v1/incidents',
        payload: {
          name: 'Service outage',
          impact: 'MAJOR',
          dashboardId: board.id,
          incidentUpdates: [
            { status: 'INVESTIGATING' },
            { status: 'IDENTIFIED', description: 'A bad deploy.' },
          ],
        },
      })
      assert.equal(res.statusCode, 200, res.body)
      const incident = json(res)
      assert.deepEqual(
        {
          ...incident,
          id: 'ID',
          incidentUpdates: incident.incidentUpdates.map((u: any) => [u.status, u.description]),
        },
        {
          id: 'ID',
          name: 'Service outage',
          impact: 'MAJOR',
          startedAt: '2026-11-22T10:00:00.000Z',
          stoppedAt: null,
          dashboardId: board.id,
          created_at: '2026-11-22T10:00:00.000Z',
          updated_at: '2026-11-22T10:00:00.000Z',
          incidentUpdates: [
            ['INVESTIGATING', ''],
            ['IDENTIFIED', 'A bad deploy.'],
          ],
        },
      )
      const get = async (query = '') =>
        json(
          await t.call({ method: 'GET', url: `/v1/incidents/${incident.id}${query}` }),
        ).incidentUpdates.map((u: { status: string }) => u.status)
      assert.deepEqual(await get(), ['IDENTIFIED'])
      assert.deepEqual(await get('?includeAllIncidentUpdates=true'), ['INVESTIGATING', 'IDENTIFIED'])

      nowMs += 60_000
      const posted = await t.call({
        method: 'POST',
        url: `/v1/incidents/${incident.id}/updates`,
        payload: { status: 'RESOLVED', description: 'Rolled back.' },
      })
      assert.equal(posted.statusCode, 201, posted.body)
      const update = json(posted)
      assert.equal(update.incidentId, incident.id)
      assert.equal(update.created_at, '2026-11-22T10:01:00.000Z')
      assert.deepEqual(await get(), ['RESOLVED'])
      const edited = await t.call({
        method: 'PUT',
        url: `/v1/incidents/${incident.id}/updates/${update.id}`,
        payload: { description: 'Rolled back to v41.' },
      })
      assert.equal(edited.statusCode, 200, edited.body)
      assert.equal(json(edited).status, 'RESOLVED')
      assert.equal(json(edited).description, 'Rolled back to v41.')
      const removed = await t.call({
        method: 'DELETE',
        url: `/v1/incidents/${incident.id}/updates/${update.id}`,
      })
      assert.equal(removed.statusCode, 204)
      assert.deepEqual(await get('?includeAllIncidentUpdates=true'), ['INVESTIGATING', 'IDENTIFIED'])
      // Its last update too, as the hosted API deletes it.
      const lastOnes = json(
        await t.call({ method: 'GET', url: `/v1/incidents/${incident.id}?includeAllIncidentUpdates=true` }),
      ).incidentUpdates
      for (const { id } of lastOnes) {
        const res = await t.call({ method: 'DELETE', url: `/v1/incidents/${incident.id}/updates/${id}` })
        assert.equal(res.statusCode, 204, res.body)
      }
      assert.deepEqual(await get('?includeAllIncidentUpdates=true'), [])
      const rePosted = await t.call({
        method: 'POST',
        url: `/v1/incidents/${incident.id}/updates`,
        payload: { status: 'IDENTIFIED', description: 'A bad deploy.' },
      })
      assert.equal(rePosted.statusCode, 201, rePosted.body)

      const edit = (query: string, payload: object) =>
        t.call({ method: 'PUT', url: `/v1/incidents/${incident.id}${query}`, payload })
      const stoppedAt = '2026-11-22T10:30:00.000Z'
      const probe = await edit('?probe=true', { name: 'Probed', impact: 'MINOR', stoppedAt })
      assert.equal(probe.statusCode, 200, probe.body)
      assert.equal(json(probe).name, 'Probed')
      assert.equal(
        json(await t.call({ method: 'GET', url: `/v1/incidents/${incident.id}` })).name,
        'Service outage',
      )
      const saved = json(await edit('', { name: 'Outage of v42', impact: 'MINOR', stoppedAt }))
      assert.deepEqual(
        [saved.name, saved.impact, saved.stoppedAt, 'incidentUpdates' in saved],
        ['Outage of v42', 'MINOR', stoppedAt, false],
      )
      const backwards = await edit('', { name: 'x', impact: 'MINOR', stoppedAt: '2026-11-22T09:00:00.000Z' })
      assert.equal(backwards.statusCode, 400)
      assert.match(json(backwards).message, /^body\.stoppedAt /)

      const strangers = await t.call({ method: 'GET', url: `/v1/incidents/${incident.id}`, as: stranger })
      assert.equal(strangers.statusCode, 404)
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/incidents/${incident.id}` })).statusCode, 204)
      assert.equal((await t.call({ method: 'GET', url: `/v1/incidents/${incident.id}` })).statusCode, 404)
    })

    test('lists a dashboard’s incidents newest first with all their updates (an svc addition)', async () => {
      const board = json(await create({ header: 'Listed', customUrl: 'listed', enableIncidents: true }))
      const other = json(await create({ header: 'Other listed', customUrl: 'other-listed' }))
      const post = async (name: string, dashboardId: number, statuses: string[]) => {
        nowMs += 60_000
        const res = await t.call({
          method: 'POST',
          url: '/v1/incidents',
          payload: {
            name,
            impact: 'MINOR',
            dashboardId,
            incidentUpdates: statuses.map((status) => ({ status })),
          },
        })
        assert.equal(res.statusCode, 200, res.body)
      }
      await post('First', board.id, ['INVESTIGATING', 'RESOLVED'])
      await post('Elsewhere', other.id, ['INVESTIGATING'])
      await post('Second', board.id, ['IDENTIFIED'])
      const list = async (query: string) => {
        const res = await t.call({ method: 'GET', url: `/v1/incidents${query}` })
        assert.equal(res.statusCode, 200, res.body)
        return {
          range: res.headers['content-range'],
          items: json(res).map((incident: { name: string; incidentUpdates: { status: string }[] }) => [
            incident.name,
            incident.incidentUpdates.map((update) => update.status),
          ]),
        }
      }
      assert.deepEqual(await list(`?dashboardId=${board.id}`), {
        range: 'items 0-1/2',
        items: [
          ['Second', ['IDENTIFIED']],
          ['First', ['INVESTIGATING', 'RESOLVED']],
        ],
      })
      assert.deepEqual(await list(`?dashboardId=${board.id}&limit=1&page=2`), {
        range: 'items 1-1/2',
        items: [['First', ['INVESTIGATING', 'RESOLVED']]],
      })
      const all = await list('?limit=100')
      assert.deepEqual(
        all.items.slice(0, 3).map(([name]: [string]) => name),
        ['Second', 'Elsewhere', 'First'],
      )
      const theirs = json(await create({ header: 'Not mine', customUrl: 'not-mine-listed' }, stranger))
      const foreign = await t.call({ method: 'GET', url: `/v1/incidents?dashboardId=${theirs.id}` })
      assert.equal(foreign.statusCode, 400)
      assert.match(json(foreign).message, /^querystring\.dashboardId names dashboard/)
      const strangers = await t.call({ method: 'GET', url: '/v1/incidents', as: stranger })
      assert.deepEqual(json(strangers), [])
      assert.equal((await t.call({ method: 'GET', url: '/v1/incidents?dashboardId=x' })).statusCode, 400)
    })

    test("incidents refuse another account's dashboard, an empty update list and a bad impact", async () => {
      const theirs = json(await create({ header: 'Theirs', customUrl: 'theirs' }, stranger))
      const post = (payload: object) => t.call({ method: 'POST', url: '/v1/incidents', payload })
      const base = { name: 'Outage', impact: 'MINOR', incidentUpdates: [{ status: 'INVESTIGATING' }] }
      const foreign = await post({ ...base, dashboardId: theirs.id })
      assert.equal(foreign.statusCode, 400)
      assert.match(json(foreign).message, /^body\.dashboardId names dashboard/)
      const mine = json(await create({ header: 'Mine too', customUrl: 'mine-too' }))
      assert.equal((await post({ ...base, dashboardId: mine.id, incidentUpdates: [] })).statusCode, 400)
      assert.equal((await post({ ...base, dashboardId: mine.id, impact: 'HUGE' })).statusCode, 400)
      assert.equal((await t.call({ method: 'GET', url: '/v1/incidents/not-a-uuid' })).statusCode, 400)
    })
  })
}
