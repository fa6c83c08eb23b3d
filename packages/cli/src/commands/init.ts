import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import type { Command } from '../command.ts'
import { stringValue } from '../command.ts'

/** The files of a new project: a config, an API check, a browser check with its spec, a heartbeat. */
export function projectFiles(name: string, url: string): Record<string, string> {
  const logicalId =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'monitoring'
  return {
    'svc.config.ts': `import { defineConfig } from '@svc/cli'

export default defineConfig({
  projectName: ${JSON.stringify(name)},
  // Names the project on the server: deploying again updates the same checks.
  logicalId: ${JSON.stringify(logicalId)},
  checks: {
    checkMatch: 'checks/**/*.check.ts',
    locations: ['local'],
    frequency: 10,
    tags: [${JSON.stringify(logicalId)}],
  },
})
`,
    'checks/website.check.ts': `import { ApiCheck, BrowserCheck } from '@svc/cli'

export const SITE_URL = ${JSON.stringify(url)}

new ApiCheck('website-up', {
  name: 'Website is up',
  request: {
    method: 'GET',
    url: SITE_URL,
    assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
  },
  degradedResponseTime: 2000,
  maxResponseTime: 5000,
})

new BrowserCheck('homepage', {
  name: 'Homepage loads',
  frequency: 30,
  code: { entrypoint: './homepage.spec.ts' },
  environmentVariables: [{ key: 'SITE_URL', value: SITE_URL }],
})
`,
    'checks/homepage.spec.ts': `import { expect, test } from '@playwright/test'

test('the homepage loads', async ({ page }) => {
  const response = await page.goto(process.env.SITE_URL as string)
  expect(response?.status()).toBeLessThan(400)
})
`,
    'checks/nightly-job.check.ts': `import { HeartbeatMonitor } from '@svc/cli'

// Ping its URL (shown by \`svc checks get\`) at the end of the job; it alerts when a day passes without.
new HeartbeatMonitor('nightly-job', {
  name: 'Nightly job',
  heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
})
`,
  }
}

export const init: Command = {
  name: 'init',
  summary: 'Make a working monitoring project (config, an API check, a browser check, a heartbeat)',
  usage: 'svc init [DIR] [--name NAME] [--url URL]',
  options: { name: { type: 'string' }, url: { type: 'string' } },
  async run(ctx) {
    const dir = resolve(ctx.cwd, ctx.positionals[0] ?? '.')
    if (existsSync(join(dir, 'svc.config.ts'))) {
      ctx.out.error(`${join(dir, 'svc.config.ts')} exists already: nothing was written`)
      return 1
    }
    const name = stringValue(ctx.values, 'name') ?? basename(dir)
    const url = stringValue(ctx.values, 'url') ?? 'https://example.com'
    const files = { ...projectFiles(name, url), ...packageFiles(dir, name) }
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true })
      writeFileSync(join(dir, file), content)
    }
    const where = relative(ctx.cwd, dir) || '.'
    ctx.out.result({ dir, files: Object.keys(files) }, () =>
      [
        `Made a monitoring project in ${where}: ${Object.keys(files).join(', ')}`,
        'Next: npm install --save-dev @svc/cli (or the tarball of `npm pack -w packages/cli`), then',
        '  svc login --api-url URL --api-key KEY',
        '  svc validate',
        '  svc deploy',
      ].join('\n'),
    )
    return 0
  },
}

/** A package.json (ES modules, so that .check.ts files may import each other) unless one exists. */
function packageFiles(dir: string, name: string): Record<string, string> {
  if (existsSync(join(dir, 'package.json'))) return {}
  const packageName = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-') || 'monitoring'
  return {
    'package.json': `${JSON.stringify({ name: packageName, private: true, type: 'module' }, null, 2)}\n`,
  }
}
