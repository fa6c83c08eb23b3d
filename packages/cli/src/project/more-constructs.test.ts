import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { CliProject, configFile } from '../testing/cli-project.ts'

const projects: CliProject[] = []
after(() => {
  for (const made of projects) made.remove()
})
const project = (files: Record<string, string>) => {
  const made = new CliProject(files)
  projects.push(made)
  return made
}

const GOOD = `import { Dashboard, EnvironmentVariable, SslMonitor, WebhookAlertChannel } from '@svc/cli'
new SslMonitor('cert', { name: 'Cert', request: { sslConfig: { hostname: 'example.com' } } })
new Dashboard('board', { customUrl: 'shop-board', tags: ['shop'], hideTags: true })
new EnvironmentVariable('base-url', { key: 'BASE_URL', value: 'https://shop.example' })
new EnvironmentVariable('token', { key: 'API_TOKEN', value: process.env.SHOP_TOKEN, secret: true })
new WebhookAlertChannel('teams', { name: 'Teams', url: 'https://example.com/teams', webhookType: 'WEBHOOK_MSTEAMS' })
`

describe('SslMonitor, Dashboard and EnvironmentVariable constructs', () => {
  test('synthesize as the deploy protocol types, an environment value read at deploy time', async () => {
    const cli = project({ 'svc.config.ts': configFile('more'), 'more.check.ts': GOOD })
    const { code, stdout, stderr } = await cli.run(['synth', '-o', 'json'], { SHOP_TOKEN: 'tok-1' })
    assert.equal(code, 0, stderr)
    const byId = Object.fromEntries(
      JSON.parse(stdout).resources.map((r: { logicalId: string }) => [r.logicalId, r]),
    )
    assert.equal(byId.cert.type, 'check')
    assert.deepEqual(byId.cert.payload.checkType, 'SSL')
    assert.deepEqual(byId.cert.payload.request, { sslConfig: { hostname: 'example.com' } })
    assert.deepEqual(byId.board, {
      logicalId: 'board',
      type: 'dashboard',
      member: true,
      payload: { customUrl: 'shop-board', tags: ['shop'], hideTags: true },
      sourceFile: 'more.check.ts',
    })
    assert.deepEqual(byId['base-url'].payload, { key: 'BASE_URL', value: 'https://shop.example' })
    assert.deepEqual(
      [byId.token.type, byId.token.payload],
      ['environment-variable', { key: 'API_TOKEN', value: 'tok-1', secret: true }],
    )
    assert.equal(byId.teams.payload.config.webhookType, 'WEBHOOK_MSTEAMS')
  })

  test('bad ones fail validate naming file and field, an unset environment value among them', async () => {
    const cli = project({
      'svc.config.ts': configFile('bad-more'),
      'more.check.ts': `import { Dashboard, EnvironmentVariable, SslMonitor } from '@svc/cli'
new SslMonitor('cert', { name: 'Cert', request: { sslConfig: { hostname: 'example.com', port: 70000 } } })
new Dashboard('board', { customUrl: 'Not A Slug', refreshRate: 7 } as any)
new EnvironmentVariable('token', { key: '1TOKEN', value: process.env.UNSET_IN_THIS_TEST, secret: true })
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
      'more.check.ts: cert: request.sslConfig.port must be <= 65535',
      'more.check.ts: board: customUrl must match pattern "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"',
      'more.check.ts: board: refreshRate must be equal to one of the allowed values: 60, 300, 600',
      'more.check.ts: token: value is required',
      'more.check.ts: token: key must match pattern "^[A-Za-z_][A-Za-z0-9_]*$"',
    ])
  })
})
