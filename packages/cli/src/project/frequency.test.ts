import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { CliProject, configFile } from '../testing/cli-project.ts'

const projects: CliProject[] = []
after(() => {
  for (const made of projects) made.remove()
})

describe('high-frequency checks in constructs', () => {
  test('Frequency.EVERY_10S synthesizes frequency 0 with its offset; a plain number stays minutes', async () => {
    const cli = new CliProject({
      'svc.config.ts': configFile('fast'),
      'fast.check.ts': `import { Frequency, TcpMonitor, UrlMonitor } from '@svc/cli'
new UrlMonitor('site', { name: 'Site', frequency: Frequency.EVERY_10S, request: { url: 'https://example.com' } })
new UrlMonitor('hourly', { name: 'Hourly', frequency: Frequency.EVERY_1H, request: { url: 'https://example.com' } })
new TcpMonitor('db', { name: 'DB', frequency: 0, frequencyOffset: 30, request: { hostname: 'db', port: 5432 } })
`,
    })
    projects.push(cli)
    const { code, stdout, stderr } = await cli.run(['synth', '--output', 'json'])
    assert.equal(code, 0, stderr)
    const byId = Object.fromEntries(JSON.parse(stdout).resources.map((r: any) => [r.logicalId, r.payload]))
    assert.deepEqual([byId.site.frequency, byId.site.frequencyOffset], [0, 10])
    assert.deepEqual([byId.hourly.frequency, byId.hourly.frequencyOffset], [60, undefined])
    assert.deepEqual([byId.db.frequency, byId.db.frequencyOffset], [0, 30])
  })

  test('frequency 0 without a 10, 20 or 30 s offset, or on a browser check, fails validation', async () => {
    const cli = new CliProject({
      'svc.config.ts': configFile('slow'),
      'bad.check.ts': `import { ApiCheck, BrowserCheck, Frequency } from '@svc/cli'
new ApiCheck('no-offset', { name: 'A', frequency: 0, request: { url: 'http://x', method: 'GET' } })
new ApiCheck('odd-offset', { name: 'B', frequency: new Frequency(0, 15), request: { url: 'http://x', method: 'GET' } })
new BrowserCheck('browser', { name: 'C', frequency: Frequency.EVERY_10S, code: { content: 'x' } } as any)
`,
    })
    projects.push(cli)
    const { code, stderr } = await cli.run(['validate'])
    assert.equal(code, 1)
    const lines = stderr
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim())
    assert.deepEqual(lines, [
      'bad.check.ts: no-offset: frequencyOffset is required with frequency 0: one of 10, 20, 30 seconds',
      'bad.check.ts: odd-offset: frequencyOffset must be one of 10, 20, 30 seconds with frequency 0',
      'bad.check.ts: browser: frequencyOffset is not a known field',
      'bad.check.ts: browser: frequency must be equal to one of the allowed values: 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440',
    ])
  })
})
