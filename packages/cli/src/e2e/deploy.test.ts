import assert from 'node:assert/strict'
import { cpSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import {
  deploymentEnv,
  type ServerProcess,
  startServerProcess,
} from '../../../server/src/testing/server-process.ts'
import { CliProject, configFile } from '../testing/cli-project.ts'

const EXAMPLES = resolve(import.meta.dirname, '../../../../examples')
// The examples' checks target this address; nothing listens there, and no check runs within the test.
const SHOP_URL = 'http://127.0.0.1:9'

for (const engine of testEngines()) {
  describe(`svc against a real server on ${engine.engine}`, () => {
    let server: ServerProcess
    let dispose: () => Promise<void>
    let key: string
    let cli: CliProject
    before(async () => {
      const store = await engine.createUrl()
      dispose = store.dispose
      const env = deploymentEnv(store.url)
      key = env.SVC_BOOTSTRAP_API_KEY
      server = await startServerProcess(env)
      cli = new CliProject()
      cpSync(EXAMPLES, cli.dir, { recursive: true })
    })
    after(async () => {
      await server?.stop()
      await dispose?.()
      cli?.remove()
    })

    const svc = (...args: string[]) => cli.run(args, { SHOP_URL })
    const api = async (path: string) => {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
      assert.equal(res.status, 200, path)
      return (await res.json()) as any
    }
    const checksByName = async () =>
      Object.fromEntries((await api('/v1/checks?limit=100')).map((c: any) => [c.name, c]))

    test('login saves the credentials (0600) that whoami then uses; a bad key is a clear error', async () => {
      const login = await svc('login', '--api-url', server.url, '--api-key', key)
      assert.equal(login.code, 0, login.stderr)
      const file = join(cli.dir, '.config/svc/config.json')
      assert.equal(statSync(file).mode & 0o777, 0o600)
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {
        apiUrl: server.url,
        apiKey: key,
        accountId: server.accountId,
      })
      const whoami = await svc('whoami', '--output', 'json')
      assert.equal(whoami.code, 0, whoami.stderr)
      assert.deepEqual(JSON.parse(whoami.stdout).account.id, server.accountId)
      assert.match((await svc('whoami')).stdout, /Account "Default" \(.+\) at http:\/\/127\.0\.0\.1:\d+/)

      const bad = await cli.run(['whoami'], { SVC_API_KEY: `svc_${'x'.repeat(43)}` })
      assert.equal(bad.code, 1)
      assert.match(bad.stderr, /GET \/v1\/accounts\/me: 401/)
    })

    test('validate, deploy, redeploy without changes, preview of one change, deploy it, destroy', async () => {
      assert.equal((await svc('validate')).code, 0)

      const firstPreview = await svc('deploy', '--preview', '--output', 'json')
      assert.equal(firstPreview.code, 0, firstPreview.stderr)
      const created = JSON.parse(firstPreview.stdout).diff
      assert.equal(created.length, 15)
      assert.ok(created.every((entry: any) => entry.action === 'CREATE'))
      assert.deepEqual(await api('/v1/checks'), [])

      const refused = await svc('deploy')
      assert.equal(refused.code, 1)
      assert.match(refused.stderr, /pass --force/)
      assert.deepEqual(await api('/v1/checks'), [])

      const deployed = await svc('deploy', '--force', '--no-schedule-on-deploy')
      assert.equal(deployed.code, 0, deployed.stderr)
      assert.match(deployed.stdout, /Deployed "Shop monitoring"/)
      const checks = await checksByName()
      assert.deepEqual(Object.keys(checks).sort(), [
        'API health',
        'Checkout quote',
        'Nightly order export',
        'Product list',
        'Storefront journey',
      ])
      const [group] = await api('/v1/check-groups')
      assert.equal(group.name, 'Shop API')
      const owner = (resource: any) => {
        const { project, binding } = resource.projectBindings.owner
        return [project.logicalId, binding.logicalId, binding.sourceFile]
      }
      assert.deepEqual(owner(group), ['shop-monitoring', 'shop-api', 'checks/api.check.ts'])
      assert.deepEqual(owner(checks['Storefront journey']), [
        'shop-monitoring',
        'storefront-journey',
        'checks/storefront.check.ts',
      ])
      assert.equal(checks['API health'].groupId, group.id)
      assert.equal(checks['Nightly order export'].groupId, null)
      assert.deepEqual(checks['Nightly order export'].tags, ['shop'])
      assert.match(checks['Storefront journey'].script, /a shopper finds a product/)
      const channels = Object.fromEntries((await api('/v1/alert-channels')).map((c: any) => [c.type, c]))
      const subscribers = (channel: any) =>
        channel.subscriptions
          .filter((s: any) => s.activated)
          .map((s: any) => s.checkId ?? s.groupId)
          .sort()
      assert.deepEqual(subscribers(channels.WEBHOOK), [group.id])
      assert.deepEqual(
        subscribers(channels.EMAIL),
        [checks['Nightly order export'].id, checks['Storefront journey'].id].sort(),
      )
      const [window] = await api('/v1/maintenance-windows')
      assert.deepEqual(
        [window.name, window.tags, window.repeatUnit],
        ['Weekly release', ['shop', 'api'], 'WEEK'],
      )
      const [project] = await api('/v1/projects')
      assert.deepEqual(
        [project.logicalId, project.name, project.resources],
        ['shop-monitoring', 'Shop monitoring', 15],
      )
      const services = Object.fromEntries(
        (await api('/v1/status-pages/services?paginated=false')).entries.map((s: any) => [s.name, s]),
      )
      assert.deepEqual(Object.keys(services).sort(), ['Shop API', 'Storefront'])
      assert.equal(checks['API health'].triggerIncident.serviceId, services['Shop API'].id)
      assert.equal(checks['Storefront journey'].triggerIncident.severity, 'MINOR')
      const [page] = await api('/v3/status-pages')
      assert.deepEqual(
        [page.name, page.url, page.cards.map((c: any) => [c.name, c.services.map((s: any) => s.name)])],
        ['Shop status', 'shop-status', [['Shop', ['Storefront', 'Shop API']]]],
      )
      const pageV1 = await api(`/v1/status-pages/${page.id}`)
      assert.deepEqual(owner(pageV1), ['shop-monitoring', 'shop-status', 'checks/status-page.check.ts'])

      const again = await svc('deploy', '--force')
      assert.equal(again.code, 0, again.stderr)
      assert.match(again.stdout, /No changes \(15 resources unchanged\)/)
      const unchanged = await checksByName()
      for (const name of Object.keys(checks)) {
        assert.equal(unchanged[name].id, checks[name].id)
        assert.equal(unchanged[name].updated_at, checks[name].updated_at)
      }
      const [samePage] = await api('/v3/status-pages')
      assert.equal(samePage.updated_at, page.updated_at)

      const apiChecks = join(cli.dir, 'checks/api.check.ts')
      writeFileSync(
        apiChecks,
        readFileSync(apiChecks, 'utf8').replace('maxResponseTime: 2000', 'maxResponseTime: 3000'),
      )
      const preview = await svc('deploy', '--preview', '--output', 'json')
      const changed = JSON.parse(preview.stdout).diff.filter((entry: any) => entry.action !== 'UNCHANGED')
      assert.deepEqual(changed, [
        {
          type: 'check',
          logicalId: 'api-health',
          physicalId: checks['API health'].id,
          action: 'UPDATE',
          changes: ['maxResponseTime'],
        },
      ])
      assert.equal((await checksByName())['API health'].maxResponseTime, 2000)
      const text = await svc('deploy', '--preview')
      assert.match(text.stdout, /UPDATE\s+check api-health \(maxResponseTime\)\n\s+14 unchanged/)

      assert.equal((await svc('deploy', '--force', '--no-schedule-on-deploy')).code, 0)
      const updated = await checksByName()
      assert.equal(updated['API health'].maxResponseTime, 3000)
      assert.deepEqual(owner(updated['API health']), ['shop-monitoring', 'api-health', 'checks/api.check.ts'])
      assert.equal(updated['API health'].id, checks['API health'].id)

      const destroyed = await svc('destroy', '--force')
      assert.equal(destroyed.code, 0, destroyed.stderr)
      assert.match(destroyed.stdout, /Destroyed "Shop monitoring"/)
      assert.deepEqual(await api('/v1/checks'), [])
      assert.deepEqual(await api('/v1/check-groups'), [])
      assert.deepEqual(await api('/v1/alert-channels'), [])
      assert.deepEqual(await api('/v1/maintenance-windows'), [])
      assert.deepEqual(await api('/v3/status-pages'), [])
      assert.deepEqual((await api('/v1/status-pages/services?paginated=false')).entries, [])
      assert.deepEqual(await api('/v1/projects'), [])
    })

    test('a private location deploys with the checks and groups that name it by reference', async () => {
      const located = new CliProject({
        'svc.config.ts': configFile('located'),
        'office.check.ts': `import { ApiCheck, CheckGroup, PrivateLocation } from '@svc/cli'
const office = new PrivateLocation('office', { name: 'Office', slugName: 'office' })
const edge = new CheckGroup('edge', { name: 'Edge', privateLocations: [office] })
new ApiCheck('intranet', {
  name: 'Intranet', activated: false, privateLocations: [office],
  request: { method: 'GET', url: 'http://127.0.0.1:9/' },
})
new ApiCheck('edge-health', { name: 'Edge health', group: edge, activated: false, request: { method: 'GET', url: 'http://127.0.0.1:9/' } })
`,
      })
      after(() => located.remove())
      const env = { SVC_API_URL: server.url, SVC_API_KEY: key }
      const deployed = await located.run(['deploy', '--force', '--no-schedule-on-deploy'], env)
      assert.equal(deployed.code, 0, deployed.stderr)
      const [location] = await api('/v1/private-locations')
      assert.deepEqual([location.name, location.slugName], ['Office', 'office'])
      const intranet = (await checksByName()).Intranet
      assert.deepEqual(intranet.privateLocations, ['office'])
      const [edge] = await api('/v1/check-groups')
      assert.deepEqual(edge.privateLocations, ['office'])
      assert.deepEqual(intranet.projectBindings.owner.binding.logicalId, 'intranet')

      const again = await located.run(['deploy', '--force'], env)
      assert.equal(again.code, 0, again.stderr)
      assert.match(again.stdout, /No changes \(6 resources unchanged\)/)
      assert.equal((await checksByName()).Intranet.updated_at, intranet.updated_at)

      const file = join(located.dir, 'office.check.ts')
      writeFileSync(file, readFileSync(file, 'utf8').replace('privateLocations: [office],\n', ''))
      const preview = await located.run(['deploy', '--preview', '--output', 'json'], env)
      const changed = JSON.parse(preview.stdout).diff.filter((entry: any) => entry.action !== 'UNCHANGED')
      assert.deepEqual(
        changed.map((entry: any) => [entry.action, entry.logicalId, entry.changes]),
        [
          ['UPDATE', 'intranet', ['privateLocations']],
          ['DELETE', 'private-location-check-assignment#intranet#office', undefined],
        ],
      )
      assert.equal((await located.run(['deploy', '--force', '--no-schedule-on-deploy'], env)).code, 0)
      const moved = (await checksByName()).Intranet
      assert.deepEqual(moved.privateLocations, [])

      const destroyed = await located.run(['destroy', '--force'], env)
      assert.equal(destroyed.code, 0, destroyed.stderr)
      assert.deepEqual(await api('/v1/private-locations'), [])
      assert.deepEqual(await api('/v1/checks'), [])
    })

    test("locations the server doesn't serve fail deploy --preview with the construct's file and field", async () => {
      const elsewhere = new CliProject({
        'svc.config.ts': configFile('elsewhere'),
        'checks/far.check.ts': `import { TcpMonitor } from '@svc/cli'
new TcpMonitor('far', { name: 'Far', locations: ['mars'], request: { hostname: '127.0.0.1', port: 9 } })
`,
      })
      after(() => elsewhere.remove())
      const env = { SVC_API_URL: server.url, SVC_API_KEY: key }
      assert.equal((await elsewhere.run(['validate'], env)).code, 0)
      const refused = await elsewhere.run(['deploy', '--preview'], env)
      assert.equal(refused.code, 1)
      assert.equal(
        refused.stderr,
        "checks/far.check.ts: far: locations names mars, which the server doesn't serve (it serves local)\n",
      )
      assert.deepEqual(await api('/v1/projects'), [])
    })
  })
}
