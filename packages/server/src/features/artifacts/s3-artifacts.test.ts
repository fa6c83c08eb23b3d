import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { AgentJob } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { PlaywrightPool } from '@svc/runner'
import { browserTestsSkipReason, ffmpegSkipReason, listenOnLoopback } from '@svc/runner/testing'
import { buildApp } from '../../app.ts'
import type { ArtifactStore } from '../../context.ts'
import { createSecretBox } from '../../crypto/secret-box.ts'
import { insertTriggerJob } from '../../runs/retries.repo.ts'
import { type S3TestServer, s3TestsSkipReason, startS3Server } from '../../testing/s3-server.ts'
import { deploymentEnv, startServerProcess, testDataDir } from '../../testing/server-process.ts'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'
import { pruneArtifacts } from '../retention/retention.service.ts'
import { createS3ArtifactStore } from './s3-artifact-store.ts'

const skip = s3TestsSkipReason() || browserTestsSkipReason()
const noFfmpeg = ffmpegSkipReason()
const DAY_MS = 86_400_000

/** Fails after a named screenshot, so a run has a script screenshot, a failure screenshot and a trace. */
const SCRIPT = `
const { test, expect } = require('@playwright/test')
test('home', async ({ page }) => {
  await page.goto(process.env.SITE_URL)
  await page.screenshot({ path: 'home.png' })
  await expect(page.locator('h1')).toHaveText('Goodbye', { timeout: 500 })
})`

/** A passing test recorded on video. */
const VIDEO_SCRIPT = `
const { test, expect } = require('@playwright/test')
test.use({ video: 'on' })
test('home', async ({ page }) => {
  await page.goto(process.env.SITE_URL)
  await expect(page.locator('h1')).toHaveText('Hello')
})`

/** Ten screenshots of incompressible noise: over a megabyte each, far past a 3 MB limit. */
const NOISY_SCRIPT = `
const { test } = require('@playwright/test')
test('noise', async ({ page }) => {
  await page.goto(process.env.SITE_URL + 'noise')
  for (let i = 0; i < 10; i++) await page.screenshot({ path: 'noise-' + i + '.png' })
})`

const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`
const NOISE_PAGE = page(`<canvas id="c" width="1000" height="700"></canvas><script>
const c = document.getElementById('c').getContext('2d')
const image = c.createImageData(1000, 700)
for (let i = 0; i < image.data.length; i++) image.data[i] = i % 4 === 3 ? 255 : Math.random() * 256
c.putImageData(image, 0, 0)
</script>`)

/**
 * Takes a run of the check on the private location as its agent does (polling, after a trigger put it
 * there): an agent uploads artifacts only under the result id of a run its location holds.
 */
async function claimScriptRun(t: TestApp, checkId: string, locationId: string, rawKey: string) {
  const nowMs = t.ctx.clock.now().getTime()
  const slotKey = `trigger:${randomUUID()}`
  const location = `private:${locationId}`
  await insertTriggerJob(t.ctx, {
    slotKey,
    checkId,
    location,
    attempt: 1,
    dueMs: nowMs,
    firstStartedMs: nowMs,
  })
  const polled = await t.app.inject({
    method: 'GET',
    url: '/agent/v1/jobs?waitSeconds=0',
    headers: { authorization: `Bearer ${rawKey}`, 'x-svc-agent-id': randomUUID() },
  })
  const [job] = json(polled) as AgentJob[]
  assert.equal(job?.slotKey, slotKey, polled.body)
  return job
}

describe('artifacts in an S3-compatible bucket (Ceph RADOS Gateway)', { skip }, () => {
  let s3: S3TestServer
  const site = { url: '' }
  const server = createServer((request, response) => {
    response.setHeader('content-type', 'text/html')
    response.end(request.url === '/noise' ? NOISE_PAGE : page('<h1>Hello</h1>'))
  })
  before(async () => {
    site.url = `${(await listenOnLoopback(server)).url}/`
    s3 = await startS3Server()
  })
  after(async () => {
    server.closeAllConnections()
    server.close()
    await s3?.stop()
  })

  for (const engine of testEngines()) {
    describe(`on ${engine.engine}`, () => {
      let t: TestApp
      let bucket = ''
      let nowMs = Date.now()
      const staging = mkdtempSync(join(tmpdir(), 'svc-staging-'))
      /** The staging root of a second node on the same store and bucket. */
      const otherStaging = mkdtempSync(join(tmpdir(), 'svc-other-node-'))
      const prefix = 'svc/artifacts/'
      before(async () => {
        bucket = await s3.createBucket()
        const artifacts = await createS3ArtifactStore(s3.config(bucket, prefix), { stagingRoot: staging })
        t = await createTestApp(engine, { artifacts, clock: { now: () => new Date(nowMs) } })
        await t.call({ method: 'POST', url: '/v1/variables', payload: { key: 'SITE_URL', value: site.url } })
      })
      after(async () => {
        await t?.close()
        for (const dir of [staging, otherStaging]) rmSync(dir, { recursive: true, force: true })
      })

      const triggerBrowserCheck = async (script = SCRIPT) => {
        const created = await t.call({
          method: 'POST',
          url: '/v1/checks/browser',
          payload: { name: 'home', script, activated: false, doubleCheck: false },
        })
        assert.equal(created.statusCode, 201, created.body)
        const check = json(created)
        const triggered = await t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
        assert.equal(triggered.statusCode, 200, triggered.body)
        return { check, result: json(triggered) }
      }
      const objectsOf = async (checkId: string) =>
        new Map([...(await s3.objects(bucket))].filter(([key]) => key.startsWith(`${prefix}${checkId}/`)))

      test('a run’s trace and screenshots land in the bucket, are served from it, and go with the check', async () => {
        const { check, result } = await triggerBrowserCheck()
        const detail = result.browserCheckResult
        assert.equal(result.hasFailures, true)
        assert.deepEqual(
          detail.screenshots.map((shot: { name: string | null; onFailure: boolean }) => [
            shot.name,
            shot.onFailure,
          ]),
          [
            ['home.png', false],
            [null, true],
          ],
        )
        assert.equal(detail.traces.length, 1)
        const listed = [...detail.screenshots, ...detail.traces].map((a: { path: string }) => a.path)
        const objects = await objectsOf(check.id)
        assert.deepEqual(
          [...objects.keys()].sort(),
          listed.map((path: string) => `${prefix}${check.id}/${result.id}/${path}`).sort(),
        )
        assert.deepEqual(readdirSync(staging), [], 'the local copy is gone once uploaded')

        for (const artifact of [...detail.screenshots, ...detail.traces]) {
          const served = await t.call({ method: 'GET', url: artifact.url.replace(t.ctx.publicUrl, '') })
          assert.equal(served.statusCode, 200)
          assert.equal(
            served.headers['content-type'],
            artifact.path.endsWith('.zip') ? 'application/zip' : 'image/png',
          )
          const stored = objects.get(`${prefix}${check.id}/${result.id}/${artifact.path}`)
          assert.ok(stored && served.rawPayload.equals(stored), `${artifact.path} is served byte for byte`)
          assert.equal(stored.length, artifact.size)
        }
        const traversal = await t.call({
          method: 'GET',
          url: `/v1/check-results/${check.id}/${result.id}/artifacts/..%2F..%2F${check.id}%2F${result.id}%2F${detail.traces[0].path}`,
        })
        assert.equal(traversal.statusCode, 404)
        const stranger = await ownerOfAnotherAccount(t)
        const denied = await t.call({
          method: 'GET',
          url: detail.traceUrl.replace(t.ctx.publicUrl, ''),
          as: stranger,
        })
        assert.equal(denied.statusCode, 404)

        assert.equal((await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })).statusCode, 204)
        assert.equal((await objectsOf(check.id)).size, 0, 'deleting the check deletes its objects')
      })

      test('a second node on the same store and bucket serves the first one’s artifacts', async () => {
        const { check, result } = await triggerBrowserCheck()
        const pool = new PlaywrightPool({ concurrency: 1 })
        const otherNode = await buildApp({
          store: t.store,
          secretBox: createSecretBox(randomBytes(32)),
          publicUrl: t.ctx.publicUrl,
          scripts: {
            pool,
            artifacts: await createS3ArtifactStore(s3.config(bucket, prefix), {
              stagingRoot: otherStaging,
            }),
          },
        })
        try {
          const trace = await otherNode.inject({
            method: 'GET',
            url: result.browserCheckResult.traceUrl.replace(t.ctx.publicUrl, ''),
            headers: { authorization: `Bearer ${t.owner.key}` },
          })
          assert.equal(trace.statusCode, 200)
          const stored = (await objectsOf(check.id)).get(
            `${prefix}${check.id}/${result.id}/${result.browserCheckResult.traces[0].path}`,
          )
          assert.ok(stored && trace.rawPayload.equals(stored))
          const deleted = await otherNode.inject({
            method: 'DELETE',
            url: `/v1/checks/${check.id}`,
            headers: { authorization: `Bearer ${t.owner.key}` },
          })
          assert.equal(deleted.statusCode, 204)
          assert.equal((await objectsOf(check.id)).size, 0)
        } finally {
          await otherNode.close()
          await pool.close()
        }
      })

      test('retention pruning deletes objects past traceRetentionDays, and those of deleted checks', async () => {
        const { check, result } = await triggerBrowserCheck()
        const orphan = randomUUID()
        await t.ctx.scripts.artifacts.put(orphan, randomUUID(), 'trace-1.zip', Buffer.from('PK orphan'))
        // Not svc's: another application's objects under the same prefix.
        await t.ctx.scripts.artifacts.put('backups', 'nightly', 'db.tar', Buffer.from('keep me'))
        assert.equal((await objectsOf(orphan)).size, 1)
        assert.equal(await pruneArtifacts(t.ctx), 0, 'a fresh run stays')
        assert.equal((await objectsOf(orphan)).size, 0, 'a deleted check’s objects go')
        assert.equal((await objectsOf('backups')).size, 1, 'objects that are not svc’s stay')
        assert.ok((await objectsOf(check.id)).size >= 3)
        nowMs += 8 * DAY_MS
        try {
          assert.equal(await pruneArtifacts(t.ctx), 1, 'past the default 7 days')
        } finally {
          nowMs -= 8 * DAY_MS
        }
        assert.equal((await objectsOf(check.id)).size, 0)
        const gone = await t.call({
          method: 'GET',
          url: result.browserCheckResult.traceUrl.replace(t.ctx.publicUrl, ''),
        })
        assert.equal(gone.statusCode, 404)
      })

      test('a run’s video lands in the bucket, is served as video/webm, and goes with retention', {
        skip: noFfmpeg,
      }, async () => {
        const { check, result } = await triggerBrowserCheck(VIDEO_SCRIPT)
        const [video] = result.browserCheckResult.videos
        assert.equal(video?.path, 'video-1.webm', JSON.stringify(result.browserCheckResult.errors))
        const stored = (await objectsOf(check.id)).get(`${prefix}${check.id}/${result.id}/video-1.webm`)
        assert.deepEqual([...(stored ?? Buffer.alloc(0)).subarray(0, 4)], [0x1a, 0x45, 0xdf, 0xa3])
        assert.equal(stored?.length, video.size)
        const served = await t.call({ method: 'GET', url: video.url.replace(t.ctx.publicUrl, '') })
        assert.equal(served.statusCode, 200)
        assert.equal(served.headers['content-type'], 'video/webm')
        assert.ok(stored && served.rawPayload.equals(stored), 'served byte for byte')
        nowMs += 8 * DAY_MS
        try {
          assert.ok((await pruneArtifacts(t.ctx)) >= 1)
        } finally {
          nowMs -= 8 * DAY_MS
        }
        assert.equal((await objectsOf(check.id)).size, 0, 'the video went with the rest')
        const gone = await t.call({ method: 'GET', url: video.url.replace(t.ctx.publicUrl, '') })
        assert.equal(gone.statusCode, 404)
      })

      test('an agent’s upload lands in the bucket and is served', async () => {
        const slugName = `lab-${randomBytes(3).toString('hex')}`
        const location = json(
          await t.call({ method: 'POST', url: '/v1/private-locations', payload: { name: 'Lab', slugName } }),
        )
        const check = json(
          await t.call({
            method: 'POST',
            url: '/v1/checks/browser',
            payload: { name: 'lab', script: SCRIPT, activated: false, privateLocations: [slugName] },
          }),
        )
        const key = json(await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }))
        const { resultId } = await claimScriptRun(t, check.id, location.id, key.rawKey)
        const bytes = randomBytes(200_000)
        const upload = (path: string) =>
          t.app.inject({
            method: 'PUT',
            url: `/agent/v1/checks/${check.id}/results/${resultId}/artifacts/${path}`,
            headers: {
              authorization: `Bearer ${key.rawKey}`,
              'x-svc-agent-id': randomUUID(),
              'content-type': 'application/octet-stream',
            },
            payload: bytes,
          })
        assert.equal((await upload('screenshot-1.png')).statusCode, 204)
        assert.equal((await upload('a/..%2F..%2Fescape.png')).statusCode, 404)
        const stored = (await objectsOf(check.id)).get(`${prefix}${check.id}/${resultId}/screenshot-1.png`)
        assert.ok(stored?.equals(bytes))
        const served = await t.call({
          method: 'GET',
          url: `/v1/check-results/${check.id}/${resultId}/artifacts/screenshot-1.png`,
        })
        assert.equal(served.statusCode, 200)
        assert.ok(served.rawPayload.equals(bytes))
      })
    })
  }

  const postgres = testEngines().find((engine) => engine.engine === 'postgres')
  test('two server processes on one PostgreSQL store and one bucket serve each other’s artifacts', {
    skip: postgres ? false : 'PostgreSQL (SVC_TEST_DATABASE_URL) missing',
  }, async () => {
    const store = await (postgres ?? assert.fail()).createUrl()
    const bucket = await s3.createBucket()
    const env = { ...deploymentEnv(store.url), ...s3.env(bucket, 'svc') }
    const apiKey = env.SVC_BOOTSTRAP_API_KEY
    const running = await startServerProcess(env)
    // Its own empty data directory, and it runs nothing: all it has is the store and the bucket.
    const serving = await startServerProcess({
      ...env,
      SVC_DATA_DIR: testDataDir(),
      SVC_RUNNER_LOCATIONS: 'none',
    })
    const call = async (base: string, method: string, path: string, body?: object) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      })
      return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) }
    }
    try {
      await call(running.url, 'POST', '/v1/variables', { key: 'SITE_URL', value: site.url })
      const created = await call(running.url, 'POST', '/v1/checks/browser', {
        name: 'home',
        script: SCRIPT,
        activated: false,
        doubleCheck: false,
      })
      assert.equal(created.status, 201, created.bytes.toString())
      const check = JSON.parse(created.bytes.toString())
      const triggered = await call(running.url, 'POST', `/v1/checks/${check.id}/trigger`)
      assert.equal(triggered.status, 200, triggered.bytes.toString())
      const result = JSON.parse(triggered.bytes.toString())
      const { traceUrl } = result.browserCheckResult
      const trace = await call(serving.url, 'GET', new URL(traceUrl).pathname)
      assert.equal(trace.status, 200)
      const objects = await s3.objects(bucket)
      const key = `svc/${check.id}/${result.id}/${result.browserCheckResult.traces[0].path}`
      assert.ok(objects.get(key)?.equals(trace.bytes), 'the other node serves the bucket’s bytes')
      assert.equal((await call(serving.url, 'DELETE', `/v1/checks/${check.id}`)).status, 204)
      assert.deepEqual([...(await s3.objects(bucket)).keys()], [])
    } finally {
      await serving.stop()
      await running.stop()
      await store.dispose()
    }
  })

  test('a server whose bucket settings are wrong fails at startup and says why', async () => {
    const bucket = await s3.createBucket()
    const wrongSecret = { ...s3.env(bucket), SVC_ARTIFACTS_S3_SECRET_ACCESS_KEY: 'not-the-secret' }
    await assert.rejects(
      startServerProcess(wrongSecret),
      /svc: SVC_ARTIFACTS_S3_BUCKET: S3 bucket svc-test-\w+ at http:\/\/127\.0\.0\.1:\d+: access denied/,
    )
    await assert.rejects(
      startServerProcess({ ...s3.env(bucket), SVC_ARTIFACTS_S3_BUCKET: 'no-such-bucket' }),
      /svc: SVC_ARTIFACTS_S3_BUCKET: S3 bucket no-such-bucket at .*: no such bucket/,
    )
  })

  describe('the per-run limit holds in the bucket', () => {
    const [engine] = testEngines()
    const limitBytes = 3 * 1024 * 1024
    let t: TestApp
    let bucket = ''
    before(async () => {
      bucket = await s3.createBucket()
      const artifacts = await createS3ArtifactStore(s3.config(bucket), { limitBytes })
      t = await createTestApp(engine ?? assert.fail('no test engine'), { artifacts })
      await t.call({ method: 'POST', url: '/v1/variables', payload: { key: 'SITE_URL', value: site.url } })
    })
    after(async () => {
      await t?.close()
    })

    test('a run is cut at the limit: what the result lists is what the bucket holds', async () => {
      const created = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/browser',
          payload: { name: 'noise', script: NOISY_SCRIPT, activated: false, doubleCheck: false },
        }),
      )
      const result = json(await t.call({ method: 'POST', url: `/v1/checks/${created.id}/trigger` }))
      const detail = result.browserCheckResult
      assert.equal(result.hasFailures, false, JSON.stringify(detail.errors))
      assert.equal(detail.artifactsTruncated, true)
      assert.ok(
        detail.screenshots.length >= 1 && detail.screenshots.length < 10,
        `${detail.screenshots.length}`,
      )
      const objects = await s3.objects(bucket)
      const listed = [...detail.screenshots, ...detail.traces]
      assert.deepEqual(
        [...objects.keys()].sort(),
        listed.map((a: { path: string }) => `${created.id}/${result.id}/${a.path}`).sort(),
      )
      const total = [...objects.values()].reduce((sum, bytes) => sum + bytes.length, 0)
      assert.ok(total <= limitBytes, `${total} bytes stored`)
    })

    test('agent uploads past the limit are refused with 413 and store nothing', async () => {
      const location = json(
        await t.call({
          method: 'POST',
          url: '/v1/private-locations',
          payload: { name: 'Lab', slugName: 'lab' },
        }),
      )
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/browser',
          payload: { name: 'agent', script: SCRIPT, activated: false, privateLocations: ['lab'] },
        }),
      )
      const key = json(await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }))
      const { resultId } = await claimScriptRun(t, check.id, location.id, key.rawKey)
      const upload = (path: string, bytes: Buffer) =>
        t.app.inject({
          method: 'PUT',
          url: `/agent/v1/checks/${check.id}/results/${resultId}/artifacts/${path}`,
          headers: {
            authorization: `Bearer ${key.rawKey}`,
            'x-svc-agent-id': randomUUID(),
            'content-type': 'application/octet-stream',
          },
          payload: bytes,
        })
      assert.equal((await upload('trace-1.zip', randomBytes(2 * 1024 * 1024))).statusCode, 204)
      const refused = await upload('screenshot-1.png', randomBytes(1024 * 1024 + 1))
      assert.equal(refused.statusCode, 413)
      assert.equal(json(refused).error, 'Payload Too Large')
      assert.match(json(refused).message, /exceed 3145728 bytes/)
      const keys = [...(await s3.objects(bucket)).keys()].filter((k) => k.startsWith(`${check.id}/`))
      assert.deepEqual(keys, [`${check.id}/${resultId}/trace-1.zip`])
    })

    test('uploads of one run spread over two server nodes on one bucket add up to the limit at most', async () => {
      const location = json(
        await t.call({
          method: 'POST',
          url: '/v1/private-locations',
          payload: { name: 'Den', slugName: 'den' },
        }),
      )
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/browser',
          payload: { name: 'agent', script: SCRIPT, activated: false, privateLocations: ['den'] },
        }),
      )
      const key = json(await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }))
      const { resultId } = await claimScriptRun(t, check.id, location.id, key.rawKey)
      // The other node's first write waits until this node has answered an upload of the same run.
      const bucketStore = await createS3ArtifactStore(s3.config(bucket), { limitBytes })
      const writing = Promise.withResolvers<void>()
      const answered = Promise.withResolvers<void>()
      const held: ArtifactStore = {
        kind: bucketStore.kind,
        limitBytes,
        stage: (...args) => bucketStore.stage(...args),
        put: async (...args) => {
          writing.resolve()
          await answered.promise
          await bucketStore.put(...args)
        },
        open: (...args) => bucketStore.open(...args),
        size: (...args) => bucketStore.size(...args),
        removeResult: (...args) => bucketStore.removeResult(...args),
        removeCheck: (...args) => bucketStore.removeCheck(...args),
        listResults: () => bucketStore.listResults(),
      }
      const pool = new PlaywrightPool({ concurrency: 1 })
      const otherNode = await buildApp({
        store: t.store,
        secretBox: createSecretBox(randomBytes(32)),
        publicUrl: t.ctx.publicUrl,
        scripts: { pool, artifacts: held },
      })
      const upload = (node: typeof otherNode, path: string, bytes: Buffer) =>
        node.inject({
          method: 'PUT',
          url: `/agent/v1/checks/${check.id}/results/${resultId}/artifacts/${path}`,
          headers: {
            authorization: `Bearer ${key.rawKey}`,
            'x-svc-agent-id': randomUUID(),
            'content-type': 'application/octet-stream',
          },
          payload: bytes,
        })
      try {
        const first = upload(otherNode, 'trace-1.zip', randomBytes(2 * 1024 * 1024))
        await Promise.race([writing.promise, first])
        const second = await upload(t.app, 'trace-2.zip', randomBytes(2 * 1024 * 1024))
        answered.resolve()
        assert.equal((await first).statusCode, 204, (await first).body)
        assert.equal(second.statusCode, 413, second.body)
        assert.match(json(second).message, /exceed 3145728 bytes/)
        const keys = [...(await s3.objects(bucket)).keys()].filter((k) => k.startsWith(`${check.id}/`))
        assert.deepEqual(keys, [`${check.id}/${resultId}/trace-1.zip`])
      } finally {
        answered.resolve()
        await otherNode.close()
        await pool.close()
      }
    })
  })
})
