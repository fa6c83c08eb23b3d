import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, test } from 'node:test'
import { promisify } from 'node:util'

const REPO = resolve(import.meta.dirname, '../../../..')
const run = promisify(execFile)
const work = mkdtempSync(join(tmpdir(), 'svc-cli-pack-'))
after(() => rmSync(work, { recursive: true, force: true }))

/** The packed package's dependencies, linked from the repository's install: the test reaches no registry. */
const DEPENDENCIES = ['typebox', 'dayjs', 'handlebars', 'jsonpath-plus']

test('npm pack ships JavaScript that runs installed, and loads a TypeScript project outside the repository', async () => {
  const path = `${join(REPO, 'node_modules/.bin')}:${process.env.PATH}`
  const { stdout } = await run('npm', ['pack', '-w', 'packages/cli', '--pack-destination', work, '--json'], {
    cwd: REPO,
    env: { ...process.env, PATH: path },
    timeout: 240_000,
  })
  const [packed] = JSON.parse(stdout)
  const files = packed.files.map((file: { path: string }) => file.path)
  assert.ok(files.includes('dist/cli/src/main.js'))
  assert.ok(files.includes('dist/cli/src/index.d.ts'))
  assert.ok(files.includes('dist/core/src/index.js'))
  assert.deepEqual(
    files.filter((file: string) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
    [],
  )

  const project = join(work, 'project')
  const installed = join(project, 'node_modules/@svc/cli')
  mkdirSync(installed, { recursive: true })
  await run('tar', ['-xzf', join(work, packed.filename), '-C', installed, '--strip-components=1'])
  for (const dependency of DEPENDENCIES) {
    symlinkSync(join(REPO, 'node_modules', dependency), join(project, 'node_modules', dependency))
  }
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'mine', private: true, type: 'module' }),
  )
  writeFileSync(
    join(project, 'svc.config.ts'),
    `import { defineConfig, type SvcConfig } from '@svc/cli'
const config: SvcConfig = { projectName: 'Mine', logicalId: 'mine', checks: { locations: ['local'] } }
export default defineConfig(config)
`,
  )
  writeFileSync(
    join(project, 'site.check.ts'),
    `import { UrlMonitor } from '@svc/cli'
const frequency: number = 5
new UrlMonitor('site', { name: 'Site', frequency, request: { url: 'https://example.com' } })
`,
  )
  const svc = (...args: string[]) =>
    run(process.execPath, [join(installed, 'bin/svc.js'), ...args], {
      cwd: project,
      env: { PATH: path, HOME: project },
    })
  const validated = await svc('validate')
  assert.match(validated.stdout, /Valid: 1 constructs \(1 resources\) in 2 files/)
  const payload = JSON.parse((await svc('synth', '-o', 'json')).stdout)
  assert.deepEqual(payload.resources, [
    {
      logicalId: 'site',
      type: 'check',
      member: true,
      payload: {
        checkType: 'URL',
        locations: ['local'],
        name: 'Site',
        frequency: 5,
        request: { url: 'https://example.com' },
        groupId: null,
      },
      sourceFile: 'site.check.ts',
    },
  ])

  writeFileSync(
    join(project, 'bad.check.ts'),
    `import { TcpMonitor } from '@svc/cli'\nnew TcpMonitor('db', { name: 'DB', request: { hostname: 'db' } } as any)\n`,
  )
  const failed = await svc('validate').catch((error) => error)
  assert.equal(failed.code, 1)
  assert.match(failed.stderr, /bad\.check\.ts: db: request\.port is required/)
})
