import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { CliProject, configFile } from '../testing/cli-project.ts'

const projects: CliProject[] = []
const project = (files: Record<string, string>) => {
  const made = new CliProject(files)
  projects.push(made)
  return made
}
after(() => {
  for (const made of projects) made.remove()
})

const PAGE = `import { ApiCheck, CheckGroup, PrivateLocation, StatusPage, StatusPageService } from '@svc/cli'
const office = new PrivateLocation('office', { name: 'Office', slugName: 'office' })
const api = new StatusPageService('api-service', { name: 'API', description: 'The public API' })
const web = new StatusPageService('web-service', { name: 'Website' })
new StatusPage('shop-status', {
  name: 'Shop status',
  url: 'shop-status',
  cards: [{ name: 'Shop', services: [api, web] }],
})
const group = new CheckGroup('edge', { name: 'Edge', privateLocations: [office, 'lab'] })
new ApiCheck('health', {
  name: 'Health',
  privateLocations: [office],
  triggerIncident: { service: api, severity: 'MAJOR', name: 'API down', description: 'Failing', notifySubscribers: true },
  request: { method: 'GET', url: 'http://127.0.0.1:9/health' },
})
`

describe('status page, service and private location constructs', () => {
  test('synth: cards name services by reference, private locations become assignments', async () => {
    const cli = project({ 'svc.config.ts': configFile('pages'), 'page.check.ts': PAGE })
    const validated = await cli.run(['validate'])
    assert.equal(validated.code, 0, validated.stderr)
    const { code, stdout, stderr } = await cli.run(['synth', '--output', 'json'])
    assert.equal(code, 0, stderr)
    const byId = Object.fromEntries(JSON.parse(stdout).resources.map((r: any) => [r.logicalId, r]))
    assert.deepEqual(byId.office, {
      logicalId: 'office',
      type: 'private-location',
      member: true,
      payload: { name: 'Office', slugName: 'office' },
      sourceFile: 'page.check.ts',
    })
    assert.equal(byId['api-service'].type, 'status-page-service')
    assert.deepEqual(byId['api-service'].payload, { name: 'API', description: 'The public API' })
    assert.deepEqual(byId['shop-status'].payload, {
      name: 'Shop status',
      url: 'shop-status',
      cards: [{ name: 'Shop', services: [{ ref: 'api-service' }, { ref: 'web-service' }] }],
    })
    assert.deepEqual(byId.edge.payload.privateLocations, ['lab'])
    assert.deepEqual(byId['private-location-group-assignment#edge#office'].payload, {
      privateLocationId: { ref: 'office' },
      groupId: { ref: 'edge' },
    })
    assert.deepEqual(byId.health.payload.privateLocations, [])
    assert.deepEqual(byId.health.payload.triggerIncident, {
      serviceId: { ref: 'api-service' },
      severity: 'MAJOR',
      name: 'API down',
      description: 'Failing',
      notifySubscribers: true,
    })
    assert.deepEqual(byId['private-location-check-assignment#health#office'], {
      logicalId: 'private-location-check-assignment#health#office',
      type: 'private-location-check-assignment',
      member: true,
      payload: { privateLocationId: { ref: 'office' }, checkId: { ref: 'health' } },
      sourceFile: 'page.check.ts',
    })
  })

  test('validate names the file and field of a bad page, service or location', async () => {
    const cli = project({
      'svc.config.ts': configFile('bad-pages'),
      'bad.check.ts': `import { ApiCheck, PrivateLocation, StatusPage, StatusPageService } from '@svc/cli'
const office = new PrivateLocation('office', { name: 'Office', slugName: 'Not A Slug' })
new StatusPageService('svc', { name: '' })
new StatusPage('page', { name: 'Page', url: 'Bad URL', cards: [{ name: 'C', services: ['api' as any] }] })
new ApiCheck('health', { name: 'Health', triggerIncident: { severity: 'MAJOR' } as any, privateLocations: [office], request: { method: 'GET', url: 'http://x' } })
`,
    })
    const { code, stderr } = await cli.run(['validate'])
    assert.equal(code, 1)
    const lines = stderr
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim())
    assert.deepEqual(lines, [
      `bad.check.ts: office: slugName must match pattern "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"`,
      'bad.check.ts: svc: name must not have fewer than 1 characters',
      'bad.check.ts: page: url must match pattern "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"',
      'bad.check.ts: page: cards.0.services.0 must be a StatusPageService construct',
      'bad.check.ts: health: triggerIncident.name is required',
      'bad.check.ts: health: triggerIncident.service must be a StatusPageService construct',
    ])
  })
})
