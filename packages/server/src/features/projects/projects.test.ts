import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'

/** A project in the hosted CLI's payload format: a group, a webhook channel, two checks, a subscription. */
function projectPayload(logicalId: string, changes: { apiName?: string; withTcp?: boolean } = {}) {
  const resources: Record<string, unknown>[] = [
    {
      logicalId: 'shop-group',
      type: 'check-group',
      member: true,
      payload: { name: 'Shop', activated: true, tags: ['shop'], locations: ['local'], concurrency: 3 },
    },
    {
      logicalId: 'ops-hook',
      type: 'alert-channel',
      member: true,
      payload: {
        type: 'WEBHOOK',
        sendRecovery: true,
        sendFailure: true,
        sendDegraded: false,
        sslExpiry: false,
        sslExpiryThreshold: 30,
        config: { name: 'Ops', url: 'http://127.0.0.1:9/hook', method: 'POST', webhookType: 'WEBHOOK' },
      },
    },
    {
      logicalId: 'api-health',
      type: 'check',
      member: true,
      payload: {
        checkType: 'API',
        name: changes.apiName ?? 'API health',
        activated: true,
        muted: false,
        shouldFail: false,
        locations: ['local'],
        tags: [],
        frequency: 10,
        groupId: { ref: 'shop-group' },
        retryStrategy: null,
        doubleCheck: true,
        // Fields the hosted CLI sends that say nothing: dropped.
        localSetupScript: null,
        frequencyOffset: 0,
        request: { method: 'GET', url: 'http://127.0.0.1:9/health', assertions: [] },
      },
    },
    {
      logicalId: 'home',
      type: 'check',
      member: true,
      sourceFile: 'checks/home.check.ts',
      payload: {
        checkType: 'URL',
        name: 'Home',
        activated: false,
        locations: ['local'],
        frequency: 5,
        groupId: null,
        request: { method: 'GET', url: 'http://127.0.0.1:9/', followRedirects: true, assertions: [] },
      },
    },
    {
      logicalId: 'ops-hook-api-health',
      type: 'alert-channel-subscription',
      member: true,
      payload: { alertChannelId: { ref: 'ops-hook' }, checkId: { ref: 'api-health' }, activated: true },
    },
  ]
  if (changes.withTcp) {
    resources.push({
      logicalId: 'db-port',
      type: 'check',
      member: true,
      payload: {
        checkType: 'TCP',
        name: 'DB',
        locations: ['local'],
        request: { hostname: '127.0.0.1', port: 5432 },
      },
    })
  }
  return { project: { logicalId, name: 'Shop monitoring', repoUrl: null }, resources }
}

for (const engine of testEngines()) {
  describe(`projects and deployments on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const deploy = async (payload: object, query = '') => {
      const res = await t.call({
        method: 'POST',
        url: `/v1/projects/deploy?scheduleOnDeploy=false${query}`,
        payload,
      })
      return { res, body: json(res) }
    }
    const completed = async (logicalId: string, id: string) => {
      const res = await t.call({
        method: 'GET',
        url: `/v1/projects/${logicalId}/deployments/${id}/completion?maxWaitSeconds=30`,
      })
      assert.equal(res.statusCode, 200, res.body)
      return json(res)
    }
    const actions = (diff: { logicalId: string; action: string }[]) =>
      Object.fromEntries(diff.map((entry) => [entry.logicalId, entry.action]))

    test('a dry run answers the diff and saves nothing; a deploy applies it and binds each resource', async () => {
      const preview = await deploy(projectPayload('shop'), '&dryRun=true')
      assert.equal(preview.res.statusCode, 200, preview.res.body)
      assert.deepEqual(actions(preview.body.diff), {
        'shop-group': 'CREATE',
        'ops-hook': 'CREATE',
        'api-health': 'CREATE',
        home: 'CREATE',
        'ops-hook-api-health': 'CREATE',
      })
      assert.equal(json(await t.call({ method: 'GET', url: '/v1/checks' })).length, 0)
      assert.equal((await t.call({ method: 'GET', url: '/v1/projects/shop' })).statusCode, 404)

      const started = await deploy(projectPayload('shop'))
      assert.equal(started.res.statusCode, 202, started.res.body)
      assert.equal(started.body.projectLogicalId, 'shop')
      const done = await completed('shop', started.body.id)
      assert.equal(done.status, 'SUCCEEDED', JSON.stringify(done.error))
      assert.equal(done.progress, 100)
      const byId = Object.fromEntries(done.result.diff.map((e: { logicalId: string }) => [e.logicalId, e]))

      const group = json(
        await t.call({ method: 'GET', url: `/v1/check-groups/${byId['shop-group'].physicalId}` }),
      )
      assert.equal(group.name, 'Shop')
      const api = json(await t.call({ method: 'GET', url: `/v1/checks/${byId['api-health'].physicalId}` }))
      assert.equal(api.name, 'API health')
      assert.equal(api.groupId, byId['shop-group'].physicalId)
      assert.equal(api.checkType, 'API')
      const home = json(await t.call({ method: 'GET', url: `/v1/checks/${byId.home.physicalId}` }))
      assert.equal(home.request.url, 'http://127.0.0.1:9/')
      assert.equal(home.activated, false)
      const channel = json(
        await t.call({ method: 'GET', url: `/v1/alert-channels/${byId['ops-hook'].physicalId}` }),
      )
      assert.deepEqual(
        channel.subscriptions.map((s: { checkId: string; activated: boolean }) => [s.checkId, s.activated]),
        [[api.id, true]],
      )
      const project = json(await t.call({ method: 'GET', url: '/v1/projects/shop' }))
      assert.equal(project.name, 'Shop monitoring')
      assert.equal(project.resources, 5)

      // Each resource names the project that manages it, in lists and single reads alike.
      const ownedBy = (logicalId: string, sourceFile: string | null = null) => ({
        owner: {
          project: { id: project.id, logicalId: 'shop', name: 'Shop monitoring' },
          binding: { logicalId, pending: false, sourceFile },
        },
        references: [],
      })
      assert.deepEqual(api.projectBindings, ownedBy('api-health'))
      assert.deepEqual(home.projectBindings, ownedBy('home', 'checks/home.check.ts'))
      assert.deepEqual(group.projectBindings, ownedBy('shop-group'))
      assert.deepEqual(channel.projectBindings, ownedBy('ops-hook'))
      const listed = json(await t.call({ method: 'GET', url: '/v1/checks' }))
      assert.deepEqual(
        listed
          .map((c: { name: string; projectBindings: { owner: { binding: { logicalId: string } } } }) => [
            c.name,
            c.projectBindings.owner.binding.logicalId,
          ])
          .sort(),
        [
          ['API health', 'api-health'],
          ['Home', 'home'],
        ],
      )
      const [listedGroup] = json(await t.call({ method: 'GET', url: '/v1/check-groups' }))
      assert.deepEqual(listedGroup.projectBindings, ownedBy('shop-group'))
      const [listedChannel] = json(await t.call({ method: 'GET', url: '/v1/alert-channels' }))
      assert.deepEqual(listedChannel.projectBindings, ownedBy('ops-hook'))
      const unmanaged = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/api',
          payload: { name: 'By hand', request: { url: 'http://127.0.0.1:9/' }, activated: false },
        }),
      )
      assert.deepEqual(unmanaged.projectBindings, { owner: null, references: [] })
      await t.call({ method: 'DELETE', url: `/v1/checks/${unmanaged.id}` })
    })

    test('deploying the same project again changes nothing; a change updates only what changed', async () => {
      const before = await t.store.db
        .selectFrom('checks')
        .select(['id', 'updated_at'])
        .orderBy('id')
        .execute()
      const schedules = await t.store.db
        .selectFrom('check_schedules')
        .select(['check_id', 'next_due_ms'])
        .execute()
      const again = await completed('shop', (await deploy(projectPayload('shop'))).body.id)
      assert.equal(again.status, 'SUCCEEDED')
      assert.deepEqual(
        new Set(again.result.diff.map((e: { action: string }) => e.action)),
        new Set(['UNCHANGED']),
      )
      assert.deepEqual(
        await t.store.db.selectFrom('checks').select(['id', 'updated_at']).orderBy('id').execute(),
        before,
      )
      assert.deepEqual(
        await t.store.db.selectFrom('check_schedules').select(['check_id', 'next_due_ms']).execute(),
        schedules,
      )

      const changed = projectPayload('shop', { apiName: 'API health v2', withTcp: true })
      const preview = await deploy(changed, '&dryRun=true')
      const entries = preview.body.diff.filter((e: { action: string }) => e.action !== 'UNCHANGED')
      assert.deepEqual(
        entries.map((e: { logicalId: string; action: string; changes?: string[] }) => [
          e.logicalId,
          e.action,
          e.changes,
        ]),
        [
          ['api-health', 'UPDATE', ['name']],
          ['db-port', 'CREATE', undefined],
        ],
      )
      const done = await completed('shop', (await deploy(changed)).body.id)
      assert.equal(done.status, 'SUCCEEDED')
      const names = (await t.store.db.selectFrom('checks').select('name').orderBy('name').execute()).map(
        (r) => r.name,
      )
      assert.deepEqual(names, ['API health v2', 'DB', 'Home'])

      // A resource deleted outside the project is made anew by the next deploy.
      const db = await t.store.db
        .selectFrom('checks')
        .select('id')
        .where('name', '=', 'DB')
        .executeTakeFirstOrThrow()
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${db.id}` })).statusCode, 204)
      const recreate = await deploy(changed, '&dryRun=true')
      assert.deepEqual(
        recreate.body.diff
          .filter((e: { action: string }) => e.action !== 'UNCHANGED')
          .map((e: { logicalId: string; action: string }) => [e.logicalId, e.action]),
        [['db-port', 'CREATE']],
      )
      assert.equal((await completed('shop', (await deploy(changed)).body.id)).status, 'SUCCEEDED')
    })

    test('a bad resource fails the whole deployment, naming it, and applies nothing', async () => {
      const bad = projectPayload('shop', { apiName: 'renamed but never saved' })
      ;(bad.resources[3] as { payload: Record<string, unknown> }).payload.frequency = 7
      const done = await completed('shop', (await deploy(bad)).body.id)
      assert.equal(done.status, 'FAILED')
      assert.match(done.error.message, /resources\.3\.payload\.frequency/)
      const names = (await t.store.db.selectFrom('checks').select('name').orderBy('name').execute()).map(
        (r) => r.name,
      )
      assert.deepEqual(names, ['API health v2', 'DB', 'Home'])

      const unknownRef = projectPayload('shop')
      ;(unknownRef.resources[2] as { payload: Record<string, unknown> }).payload.groupId = { ref: 'nowhere' }
      const preview = await deploy(unknownRef, '&dryRun=true')
      assert.equal(preview.res.statusCode, 400)
      assert.match(preview.body.message, /resources\.2\.payload\.groupId refers to "nowhere"/)
      const badType = await deploy({
        ...projectPayload('shop'),
        resources: [{ logicalId: 'x', type: 'status-page-automation-rule', payload: {} }],
      })
      assert.equal(badType.res.statusCode, 202)
      const failed = await completed('shop', badType.body.id)
      assert.match(failed.error.message, /resources\.0\.type "status-page-automation-rule" can't be deployed/)
    })

    test('resources that leave the project are deleted, or detached with preserveResources', async () => {
      const withoutHome = projectPayload('shop', { apiName: 'API health v2', withTcp: true })
      withoutHome.resources = withoutHome.resources.filter(
        (r) => r.logicalId !== 'home' && r.logicalId !== 'db-port',
      )
      const preserved = await completed(
        'shop',
        (await deploy(withoutHome, '&preserveResources=true')).body.id,
      )
      const left = preserved.result.diff.filter((e: { action: string }) => e.action === 'DETACHED')
      assert.deepEqual(left.map((e: { logicalId: string }) => e.logicalId).sort(), ['db-port', 'home'])
      const names = (await t.store.db.selectFrom('checks').select('name').orderBy('name').execute()).map(
        (r) => r.name,
      )
      assert.deepEqual(names, ['API health v2', 'DB', 'Home'])
      const detached = json(await t.call({ method: 'GET', url: `/v1/checks/${left[0].physicalId}` }))
      assert.deepEqual(detached.projectBindings, { owner: null, references: [] })

      const deleted = await t.call({ method: 'DELETE', url: '/v1/projects/shop' })
      assert.equal(deleted.statusCode, 202)
      const done = await completed('shop', json(deleted).id)
      assert.equal(done.status, 'SUCCEEDED', JSON.stringify(done.error))
      const remaining = (await t.store.db.selectFrom('checks').select('name').orderBy('name').execute()).map(
        (r) => r.name,
      )
      assert.deepEqual(remaining, ['DB', 'Home'])
      assert.equal(json(await t.call({ method: 'GET', url: '/v1/check-groups' })).length, 0)
      assert.equal((await t.call({ method: 'GET', url: '/v1/projects/shop' })).statusCode, 404)
    })

    test('a deploy while another deployment of the project runs is 409 naming it, until that one ends', async () => {
      const accountId = json(await t.call({ method: 'GET', url: '/v1/accounts/me' })).id
      // A deployment another node took and still runs: its lease is live.
      const insertRunning = async (id: string, leaseUntil: string) =>
        t.store.db
          .insertInto('deployments')
          .values({
            id,
            account_id: accountId,
            project_logical_id: 'race',
            kind: 'DEPLOY',
            status: 'PENDING',
            request: JSON.stringify({ payload: projectPayload('race'), options: {} }),
            result: null,
            error: null,
            lease_until: leaseUntil,
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
            finished_at: null,
          })
          .execute()
      const elsewhere = '7f000000-0000-4000-8000-000000000001'
      await insertRunning(elsewhere, new Date(Date.now() + 600_000).toISOString())
      const refused = await deploy(projectPayload('race'))
      assert.equal(refused.res.statusCode, 409)
      assert.equal(refused.body.attributes.deploymentId, elsewhere)
      const cancelled = json(
        await t.call({ method: 'POST', url: `/v1/projects/race/deployments/${elsewhere}/cancel` }),
      )
      assert.equal(cancelled.status, 'CANCELLED')

      // One whose node died (its lease ran out) failed, applied nothing, and doesn't block the project.
      const dead = '7f000000-0000-4000-8000-000000000002'
      await insertRunning(dead, new Date(Date.now() - 1000).toISOString())
      const accepted = await deploy(projectPayload('race'))
      assert.equal(accepted.res.statusCode, 202, accepted.res.body)
      assert.equal((await completed('race', accepted.body.id)).status, 'SUCCEEDED')
      const failed = json(await t.call({ method: 'GET', url: `/v1/projects/race/deployments/${dead}` }))
      assert.equal(failed.status, 'FAILED')
      assert.match(failed.error.message, /stopped: nothing was applied/)
    })

    test('the event stream sends progress, then the deployment as complete', async () => {
      const started = await deploy(projectPayload('race', { withTcp: true }))
      const res = await t.call({
        method: 'GET',
        url: `/v1/projects/race/deployments/${started.body.id}/events`,
      })
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-type']), /text\/event-stream/)
      const frames = res.body
        .trim()
        .split('\n\n')
        .map((raw) => {
          const [event, data] = raw.split('\n')
          return {
            event: event?.slice('event: '.length),
            data: JSON.parse(data?.slice('data: '.length) ?? 'null'),
          }
        })
      assert.equal(frames.at(-1)?.event, 'complete')
      assert.equal(frames.at(-1)?.data.status, 'SUCCEEDED')
      for (const frame of frames.slice(0, -1)) assert.equal(typeof frame.data.progress, 'number')
    })

    test('private locations (and their check assignments), status page services, maintenance windows and status pages deploy by reference', async () => {
      const pagePayload = (serviceName: string) => ({
        project: { logicalId: 'pages', name: 'Pages' },
        resources: [
          {
            logicalId: 'lab',
            type: 'private-location',
            payload: { name: 'Lab', slugName: 'lab-deployed', icon: 'location', proxyUrl: undefined },
          },
          { logicalId: 'checkout', type: 'status-page-service', payload: { name: serviceName } },
          {
            logicalId: 'lab-api',
            type: 'check',
            payload: {
              checkType: 'API',
              name: 'Lab API',
              activated: false,
              locations: [],
              request: { method: 'GET', url: 'http://127.0.0.1:9/lab' },
            },
          },
          {
            logicalId: 'private-location-check-assignment#lab-api#lab',
            type: 'private-location-check-assignment',
            payload: { privateLocationId: { ref: 'lab' }, checkId: { ref: 'lab-api' } },
          },
          {
            logicalId: 'night',
            type: 'maintenance-window',
            payload: {
              name: 'Nightly',
              tags: ['shop'],
              startsAt: '2026-01-05T22:00:00.000Z',
              endsAt: '2026-01-05T23:00:00.000Z',
              repeatInterval: 1,
              repeatUnit: 'DAY',
              repeatEndsAt: null,
            },
          },
          {
            logicalId: 'public',
            type: 'status-page',
            payload: {
              name: 'Shop status',
              url: 'shop-deployed',
              defaultTheme: 'AUTO',
              cards: [{ name: 'Shop', services: [{ ref: 'checkout' }] }],
            },
          },
        ],
      })
      const done = await completed('pages', (await deploy(pagePayload('Checkout'))).body.id)
      assert.equal(done.status, 'SUCCEEDED', JSON.stringify(done.error))
      const byId = Object.fromEntries(
        done.result.diff.map((e: { logicalId: string; physicalId: unknown }) => [e.logicalId, e.physicalId]),
      )
      const location = json(await t.call({ method: 'GET', url: `/v1/private-locations/${byId.lab}` }))
      assert.deepEqual([location.name, location.slugName], ['Lab', 'lab-deployed'])
      const labApi = json(await t.call({ method: 'GET', url: `/v1/checks/${byId['lab-api']}` }))
      assert.deepEqual(labApi.privateLocations, ['lab-deployed'])
      const window = json(await t.call({ method: 'GET', url: `/v1/maintenance-windows/${byId.night}` }))
      assert.deepEqual([window.name, window.tags, window.repeatUnit], ['Nightly', ['shop'], 'DAY'])
      const page = json(await t.call({ method: 'GET', url: `/v3/status-pages/${byId.public}` }))
      assert.deepEqual(
        page.cards.map((card: { name: string; services: { id: string; name: string }[] }) => [
          card.name,
          card.services.map((service) => [service.id, service.name]),
        ]),
        [['Shop', [[byId.checkout, 'Checkout']]]],
      )
      const v1 = json(await t.call({ method: 'GET', url: `/v1/status-pages/${byId.public}` }))
      assert.equal(v1.projectBindings.owner.binding.logicalId, 'public')
      assert.equal(v1.projectBindings.owner.project.logicalId, 'pages')

      const again = await completed('pages', (await deploy(pagePayload('Checkout'))).body.id)
      assert.deepEqual(
        new Set(again.result.diff.map((e: { action: string }) => e.action)),
        new Set(['UNCHANGED']),
      )
      const renamed = await completed('pages', (await deploy(pagePayload('Payments'))).body.id)
      assert.deepEqual(
        renamed.result.diff
          .filter((e: { action: string }) => e.action !== 'UNCHANGED')
          .map((e: { logicalId: string; action: string }) => [e.logicalId, e.action]),
        [['checkout', 'UPDATE']],
      )
      const service = json(await t.call({ method: 'GET', url: `/v1/status-pages/services/${byId.checkout}` }))
      assert.equal(service.name, 'Payments')

      // Destroyed in order: the page before the service it shows.
      const deleted = json(await t.call({ method: 'DELETE', url: '/v1/projects/pages' }))
      const destroyed = await completed('pages', deleted.id)
      assert.equal(destroyed.status, 'SUCCEEDED', JSON.stringify(destroyed.error))
      for (const url of [
        `/v1/private-locations/${byId.lab}`,
        `/v1/checks/${byId['lab-api']}`,
        `/v1/maintenance-windows/${byId.night}`,
        `/v3/status-pages/${byId.public}`,
        `/v1/status-pages/services/${byId.checkout}`,
      ]) {
        assert.equal((await t.call({ method: 'GET', url })).statusCode, 404, url)
      }
    })

    test("the hosted CLI's dashboards deploy, are replaced whole on the next deploy, and go with the project", async () => {
      const boardPayload = (settings: object) => ({
        project: { logicalId: 'boards', name: 'Boards' },
        resources: [
          {
            logicalId: 'status',
            type: 'dashboard',
            payload: { customUrl: 'deployed-board', tags: ['prod'], customCSS: undefined, ...settings },
          },
        ],
      })
      const first = await completed(
        'boards',
        (await deploy(boardPayload({ header: 'Prod', hideTags: true }))).body.id,
      )
      assert.equal(first.status, 'SUCCEEDED', JSON.stringify(first.error))
      const id = first.result.diff.find((e: { logicalId: string }) => e.logicalId === 'status').physicalId
      const read = async () => json(await t.call({ method: 'GET', url: `/v1/dashboards/${id}` }))
      assert.deepEqual(
        [(await read()).header, (await read()).hideTags, (await read()).tags],
        ['Prod', true, ['prod']],
      )
      // A header the construct leaves out is empty; a setting it leaves out is the default again.
      const second = await completed('boards', (await deploy(boardPayload({ refreshRate: 300 }))).body.id)
      assert.equal(second.status, 'SUCCEEDED', JSON.stringify(second.error))
      assert.deepEqual(
        [(await read()).header, (await read()).hideTags, (await read()).refreshRate],
        ['', false, 300],
      )
      const destroyed = await completed(
        'boards',
        json(await t.call({ method: 'DELETE', url: '/v1/projects/boards' })).id,
      )
      assert.equal(destroyed.status, 'SUCCEEDED', JSON.stringify(destroyed.error))
      assert.equal((await t.call({ method: 'GET', url: `/v1/dashboards/${id}` })).statusCode, 404)
    })

    test('the hosted CLI makes, reads and lists projects under /next/projects', async () => {
      const project = { logicalId: 'imported', name: 'Imported', repoUrl: 'https://example.com/repo' }
      const made = await t.call({ method: 'POST', url: '/next/projects', payload: project })
      assert.equal(made.statusCode, 201, made.body)
      assert.deepEqual(
        [json(made).logicalId, json(made).name, json(made).repoUrl, json(made).resources],
        ['imported', 'Imported', 'https://example.com/repo', 0],
      )
      const again = await t.call({ method: 'POST', url: '/next/projects', payload: project })
      assert.equal(again.statusCode, 409)
      const read = json(await t.call({ method: 'GET', url: '/next/projects/imported' }))
      assert.equal(read.id, json(made).id)
      const listed = json(await t.call({ method: 'GET', url: '/next/projects' }))
      assert.ok(listed.some((p: { logicalId: string }) => p.logicalId === 'imported'))
      assert.equal((await t.call({ method: 'GET', url: '/next/projects/nowhere' })).statusCode, 404)
    })

    test("another account can't see or follow a project's deployments", async () => {
      const other = await ownerOfAnotherAccount(t)
      const started = await deploy(projectPayload('mine'))
      await completed('mine', started.body.id)
      for (const url of [
        '/v1/projects/mine',
        '/next/projects/mine',
        `/v1/projects/mine/deployments/${started.body.id}`,
      ]) {
        assert.equal((await t.call({ method: 'GET', url, as: other })).statusCode, 404, url)
      }
      assert.deepEqual(json(await t.call({ method: 'GET', url: '/v1/projects', as: other })), [])
      assert.deepEqual(json(await t.call({ method: 'GET', url: '/next/projects', as: other })), [])
    })
  })
}
