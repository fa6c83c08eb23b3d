import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { CliProject } from '../testing/cli-project.ts'

const cli = new CliProject()
after(() => cli.remove())

test('init makes a project that validates and synthesizes; a second init refuses to overwrite it', async () => {
  const made = await cli.run(['init', 'shop', '--name', 'Shop checks', '--url', 'https://shop.example.com/'])
  assert.equal(made.code, 0, made.stderr)
  assert.match(made.stdout, /Made a monitoring project in shop: svc\.config\.ts, checks\/website\.check\.ts/)
  const dir = join(cli.dir, 'shop')
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), {
    name: 'shop-checks',
    private: true,
    type: 'module',
  })
  const inShop = new CliProject()
  after(() => inShop.remove())
  inShop.write(
    Object.fromEntries(
      [
        'svc.config.ts',
        'checks/website.check.ts',
        'checks/homepage.spec.ts',
        'checks/nightly-job.check.ts',
      ].map((file) => [file, readFileSync(join(dir, file), 'utf8')]),
    ),
  )
  const validated = await inShop.run(['validate'])
  assert.equal(validated.code, 0, validated.stderr)
  assert.match(validated.stdout, /Valid: 3 constructs \(3 resources\) in 3 files/)
  const payload = JSON.parse((await inShop.run(['synth', '-o', 'json'])).stdout)
  assert.deepEqual(payload.project, { logicalId: 'shop-checks', name: 'Shop checks' })
  assert.deepEqual(
    payload.resources.map((r: any) => `${r.payload.checkType} ${r.payload.name} ${r.payload.tags}`),
    [
      'HEARTBEAT Nightly job shop-checks',
      'API Website is up shop-checks',
      'BROWSER Homepage loads shop-checks',
    ],
  )

  const again = await cli.run(['init', 'shop'])
  assert.equal(again.code, 1)
  assert.match(again.stderr, /svc\.config\.ts exists already: nothing was written/)
})
