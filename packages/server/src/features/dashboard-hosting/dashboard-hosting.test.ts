import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, TEST_ADMIN_TOKEN, type TestApp } from '../../testing/test-app.ts'

const [sqlite] = testEngines()
const INDEX = '<!doctype html><title>svc</title><script type="module" src="/assets/app-3f9a1c.js"></script>'
const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

/** A dist directory as Vite leaves it: index.html, hashed assets, a public file. */
function builtDashboard(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-web-dist-'))
  mkdirSync(join(dir, 'assets'))
  writeFileSync(join(dir, 'index.html'), INDEX)
  writeFileSync(join(dir, 'assets', 'app-3f9a1c.js'), 'console.log("app")')
  // The build writes these beside each text file (packages/web/vite.config.ts).
  writeFileSync(join(dir, 'assets', 'app-3f9a1c.js.br'), brotliCompressSync('console.log("app")'))
  writeFileSync(join(dir, 'assets', 'app-3f9a1c.js.gz'), gzipSync('console.log("app")'))
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  writeFileSync(join(dir, '.env'), 'SECRET=1')
  return dir
}

function assertJson404(response: { statusCode: number; body: string }, what: string) {
  assert.equal(response.statusCode, 404, what)
  assert.equal(json(response as never).error, 'Not Found', what)
}

describe('dashboard hosting', () => {
  let t: TestApp
  let dist: string
  before(async () => {
    dist = builtDashboard()
    t = await createTestApp(sqlite as never, { webDistDir: dist })
  })
  after(async () => {
    await t.close()
    rmSync(dist, { recursive: true, force: true })
  })

  test('/ and any page a browser asks for answer index.html, not cached', async () => {
    for (const url of ['/', '/checks/8f1d2c3a', '/set-password?token=abc', '/sign-in']) {
      const page = await t.call({ method: 'GET', url, headers: HTML, as: null })
      assert.equal(page.statusCode, 200, url)
      assert.equal(page.body, INDEX, url)
      assert.match(String(page.headers['content-type']), /^text\/html/, url)
      assert.equal(page.headers['cache-control'], 'no-cache', url)
    }
    // `/` needs no Accept header (curl).
    assert.equal((await t.call({ method: 'GET', url: '/', as: null })).body, INDEX)
  })

  test("Playwright's trace viewer is served from playwright-core at /trace-viewer/", async () => {
    const page = await t.call({
      method: 'GET',
      url: '/trace-viewer/?trace=%2Fx.zip',
      headers: HTML,
      as: null,
    })
    assert.equal(page.statusCode, 200)
    assert.match(page.body, /<title>Playwright Trace Viewer<\/title>/)
    const worker = await t.call({ method: 'GET', url: '/trace-viewer/sw.bundle.js', as: null })
    assert.equal(worker.statusCode, 200)
    assert.match(String(worker.headers['content-type']), /javascript/)
    const bare = await t.call({ method: 'GET', url: '/trace-viewer?trace=%2Fx.zip', headers: HTML, as: null })
    assert.equal(bare.statusCode, 302)
    assert.equal(bare.headers.location, '/trace-viewer/?trace=%2Fx.zip')
    assertJson404(await t.call({ method: 'GET', url: '/trace-viewer/missing.js', as: null }), 'missing')
    assertJson404(
      await t.call({ method: 'GET', url: '/trace-viewer/%2E%2E/%2E%2E/package.json', as: null }),
      'outside the viewer',
    )
  })

  test('hashed assets are cached for a year; other files are revalidated; missing ones are 404', async () => {
    const asset = await t.call({ method: 'GET', url: '/assets/app-3f9a1c.js', as: null })
    assert.equal(asset.statusCode, 200)
    assert.equal(asset.body, 'console.log("app")')
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable')
    const favicon = await t.call({ method: 'GET', url: '/favicon.svg', as: null })
    assert.equal(favicon.statusCode, 200)
    assert.equal(favicon.headers['cache-control'], 'no-cache')
    assertJson404(await t.call({ method: 'GET', url: '/assets/gone-000000.js', as: null }), 'missing asset')
    const dotfile = await t.call({ method: 'GET', url: '/.env', headers: HTML, as: null })
    assert.equal(dotfile.body, INDEX, 'a dotfile is never served: a browser gets the app')
    const outside = await t.call({ method: 'GET', url: '/%2e%2e/%2e%2e/package.json', as: null })
    assert.equal(outside.body.includes('"name"'), false, 'nothing outside the dist directory')
  })

  test("a browser that accepts brotli or gzip gets the build's compressed file, still cached a year", async () => {
    const asked = (encoding?: string) =>
      t.call({
        method: 'GET',
        url: '/assets/app-3f9a1c.js',
        headers: encoding ? { 'accept-encoding': encoding } : {},
        as: null,
      })
    const br = await asked('gzip, deflate, br')
    assert.equal(br.headers['content-encoding'], 'br')
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), 'console.log("app")')
    assert.match(String(br.headers['content-type']), /javascript/)
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.match(String(br.headers.vary), /accept-encoding/i)
    const gz = await asked('gzip')
    assert.equal(gz.headers['content-encoding'], 'gzip')
    assert.equal(gunzipSync(gz.rawPayload).toString(), 'console.log("app")')
    const plain = await asked()
    assert.equal(plain.headers['content-encoding'], undefined)
    assert.equal(plain.body, 'console.log("app")')
    // A file the build left uncompressed (too small) is sent as it is.
    const index = await t.call({
      method: 'GET',
      url: '/',
      headers: { ...HTML, 'accept-encoding': 'br' },
      as: null,
    })
    assert.equal(index.headers['content-encoding'], undefined)
    assert.equal(index.body, INDEX)
  })

  test('API, admin, agent, status and docs paths keep priority and their JSON 404s', async () => {
    assertJson404(await t.call({ method: 'GET', url: '/v1/no-such-route', headers: HTML, as: null }), '/v1')
    assertJson404(await t.call({ method: 'GET', url: '/v3/no-such-route', headers: HTML, as: null }), '/v3')
    assertJson404(
      await t.call({ method: 'GET', url: '/admin/v1/nothing', headers: HTML, as: null }),
      '/admin',
    )
    assertJson404(
      await t.call({ method: 'GET', url: '/agent/v1/nothing', headers: HTML, as: null }),
      '/agent',
    )
    assertJson404(await t.call({ method: 'GET', url: '/ping', headers: HTML, as: null }), '/ping')
    assertJson404(await t.call({ method: 'POST', url: '/checks', headers: HTML, as: null }), 'a POST')
    assertJson404(
      await t.call({ method: 'GET', url: '/checks/1', headers: { accept: 'application/json' }, as: null }),
      'JSON',
    )
    assert.equal(
      (await t.call({ method: 'GET', url: '/v1/checks', headers: HTML, as: null })).statusCode,
      401,
    )
    const status = await t.call({ method: 'GET', url: '/status/no-such-page', headers: HTML, as: null })
    assert.equal(status.statusCode, 404)
    assert.notEqual(status.body, INDEX)
    assert.equal(
      (await t.call({ method: 'GET', url: '/openapi.json', headers: HTML, as: null })).statusCode,
      200,
    )
    const admin = await t.call({
      method: 'GET',
      url: '/admin/v1/api-keys',
      headers: { ...HTML, authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      as: null,
    })
    assert.equal(admin.statusCode, 200)
  })

  test('the API docs link back to the dashboard', async () => {
    const doc = json(await t.call({ method: 'GET', url: '/openapi.json', as: null }))
    assert.match(doc.info.description, /\[Open the dashboard\]\(http:\/\/svc\.test\/\)/)
  })
})

describe('dashboard hosting before the build', () => {
  let t: TestApp
  const missing = join(tmpdir(), 'svc-web-dist-never-built')
  before(async () => {
    t = await createTestApp(sqlite as never, { webDistDir: missing })
  })
  after(() => t.close())

  test('/ answers a page saying how to build the dashboard; the API works', async () => {
    const page = await t.call({ method: 'GET', url: '/checks/1', headers: HTML, as: null })
    assert.equal(page.statusCode, 503)
    assert.match(String(page.headers['content-type']), /^text\/html/)
    assert.match(page.body, /npm run build -w @svc\/web/)
    assert.equal((await t.call({ method: 'GET', url: '/v1/checks' })).statusCode, 200)
    assertJson404(await t.call({ method: 'GET', url: '/v1/nope', headers: HTML, as: null }), '/v1')
  })
})
