import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'

const LONG_PATH = `tests/${'deeply-nested/'.repeat(8)}journey.spec.mjs`

/** A gzipped tar made by the system's `tar` (GNU long names, or pax with `format`), as a CLI makes one. */
function tarGz(files: Record<string, string | Buffer>, format = 'gnu'): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bundle-'))
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), content)
    }
    return execFileSync('tar', [`--format=${format}`, '-czf', '-', '-C', dir, '.'])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const SUITE = {
  'package.json': '{"type":"module"}',
  'package-lock.json': '{"lockfileVersion":3}',
  'playwright.config.mjs': "export default { testDir: './tests' }",
  [LONG_PATH]: "import { test } from '@playwright/test'\ntest('journey', async () => {})\n",
}

for (const engine of testEngines()) {
  describe(`the hosted CLI's storage and code bundles on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const upload = (path: string, payload: Buffer | string, contentType = 'application/octet-stream') =>
      t.call({
        method: 'POST',
        url: `/next/checkly-storage/${path}`,
        payload,
        headers: { 'content-type': contentType },
      })
    const playwrightCheck = (codeBundlePath: string) => ({
      project: { logicalId: 'suites', name: 'Suites' },
      resources: [
        {
          logicalId: 'journey',
          type: 'check',
          payload: {
            checkType: 'PLAYWRIGHT',
            name: 'Journey',
            activated: false,
            locations: ['local'],
            codeBundlePath,
            cacheHash: 'abc',
            browsers: ['chromium'],
            playwrightVersion: '1.65.1',
            installCommand: 'npm install',
            testCommand: "npx playwright test --config 'playwright.config.mjs' --grep '@smoke|@critical'",
            workingDir: '.',
          },
        },
      ],
    })
    const deploy = async (payload: object, query = '') =>
      t.call({ method: 'POST', url: `/v1/projects/deploy?scheduleOnDeploy=false${query}`, payload })
    const completed = async (id: string) =>
      json(
        await t.call({
          method: 'GET',
          url: `/v1/projects/suites/deployments/${id}/completion?maxWaitSeconds=30`,
        }),
      )

    test('a PLAYWRIGHT check deploys with the files of its uploaded bundle inline; a redeploy of the same files is unchanged', async () => {
      for (const format of ['gnu', 'pax']) {
        const uploaded = await upload('upload-code-bundle', tarGz(SUITE, format))
        assert.equal(uploaded.statusCode, 200, uploaded.body)
        const { key } = json(uploaded)
        const started = await deploy(playwrightCheck(key))
        assert.equal(started.statusCode, 202, started.body)
        const done = await completed(json(started).id)
        assert.equal(done.status, 'SUCCEEDED', JSON.stringify(done.error))
        assert.deepEqual(
          done.result.diff.map((d: { action: string }) => d.action),
          [format === 'gnu' ? 'CREATE' : 'UNCHANGED'],
        )
      }
      const [check] = json(await t.call({ method: 'GET', url: '/v1/checks' }))
      assert.equal(check.checkType, 'AUTOMATION')
      assert.equal(check.playwrightConfigPath, 'playwright.config.mjs')
      assert.equal(check.grep, '@smoke|@critical')
      // Lockfiles are left out: svc's runtime has the packages and installs nothing.
      assert.deepEqual(
        check.dependencies.map((d: { path: string }) => d.path),
        ['package.json', 'playwright.config.mjs', LONG_PATH],
      )
      assert.equal(check.dependencies[2].content, SUITE[LONG_PATH])
    })

    test('bad uploads and unknown keys are 4xx naming the problem', async () => {
      const notGzip = await upload('upload-code-bundle', Buffer.from('plain text'))
      assert.equal(notGzip.statusCode, 400)
      assert.match(json(notGzip).message, /The code bundle can't be read: it is not gzip data/)
      const notTar = await upload('upload-code-bundle', gzipSync(Buffer.alloc(2048, 7)))
      assert.equal(notTar.statusCode, 400)
      assert.match(json(notTar).message, /it is not a tar archive/)
      assert.equal((await upload('upload-code-bundle', '{"a":1}', 'application/json')).statusCode, 415)
      assert.equal((await upload('upload', Buffer.alloc(11 * 1024 * 1024))).statusCode, 413)

      const binary = json(
        await upload('upload-code-bundle', tarGz({ 'logo.png': Buffer.from([0xff, 0xfe, 0]) })),
      )
      const unknown = await deploy(playwrightCheck('code-bundles/nope'), '&dryRun=true')
      assert.equal(unknown.statusCode, 400)
      assert.match(
        json(unknown).message,
        /^resources\.0\.payload\.codeBundlePath names no uploaded code bundle/,
      )
      const notText = await deploy(playwrightCheck(binary.key), '&dryRun=true')
      assert.equal(notText.statusCode, 400)
      assert.match(json(notText).message, /logo\.png is not a text file/)
    })

    test('a file uploads and downloads as it was, for its own account only', async () => {
      const bytes = Buffer.from([0, 1, 2, 255, 254])
      const { key } = json(await upload('upload', bytes))
      const download = (as?: Awaited<ReturnType<typeof ownerOfAnotherAccount>>) =>
        t.call({ method: 'POST', url: '/next/checkly-storage/download', payload: { key }, as })
      const got = await download()
      assert.equal(got.statusCode, 200)
      assert.equal(got.headers['content-type'], 'application/octet-stream')
      assert.deepEqual(got.rawPayload, bytes)
      assert.equal((await download(await ownerOfAnotherAccount(t))).statusCode, 404)
    })
  })
}
