import assert from 'node:assert/strict'
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { freePort, listenOnLoopback } from '@svc/runner/testing'

const MAIN = join(import.meta.dirname, 'main.ts')
/** What every agent started here is given besides its own settings: PATH, and the suite's compile cache. */
const BASE_ENV = {
  PATH: process.env.PATH,
  ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
}
const node = (args: string[]) =>
  [process.execPath, ['--disable-warning=ExperimentalWarning', MAIN, ...args]] as const

test('without API_KEY the agent says so and exits 1; unknown options too', () => {
  const missing = spawnSync(...node([]), {
    env: BASE_ENV,
    encoding: 'utf8',
    timeout: 30_000,
  })
  assert.equal(missing.status, 1)
  assert.match(missing.stderr, /^svc agent: API_KEY is not set/)
  const unknown = spawnSync(...node(['--frobnicate']), {
    env: { ...BASE_ENV, API_KEY: 'k' },
    encoding: 'utf8',
    timeout: 30_000,
  })
  assert.equal(unknown.status, 1)
  assert.match(unknown.stderr, /Unknown option '--frobnicate'.*usage: npm run agent \[-- --refresh-cache\]/)
})

test('a health port in use: the agent names AGENT_HEALTH_PORT and exits 1', async () => {
  const taken = createServer()
  await new Promise<void>((done) => taken.listen(0, done))
  const port = (taken.address() as AddressInfo).port
  try {
    const child = spawn(...node([]), {
      env: {
        ...BASE_ENV,
        API_KEY: 'svc_pl_x',
        SVC_API_URL: 'http://127.0.0.1:9',
        AGENT_HEALTH_PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    const code = await new Promise<number | null>((done) => child.on('exit', (exit) => done(exit)))
    assert.equal(code, 1)
    assert.equal(
      stderr,
      `svc agent: AGENT_HEALTH_PORT ${port} is in use: stop what listens there or set AGENT_HEALTH_PORT to a free port\n`,
    )
  } finally {
    taken.close()
  }
})

test('--refresh-cache clears the caches script runs share before the agent starts', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'svc-agent-tmp-'))
  const cache = join(tmp, 'svc-playwright-cache', 'transform')
  mkdirSync(cache, { recursive: true })
  writeFileSync(join(cache, 'entry'), 'stale')
  let child: ChildProcess | undefined
  try {
    child = spawn(...node(['--refresh-cache']), {
      env: {
        ...BASE_ENV,
        TMPDIR: tmp,
        API_KEY: 'svc_pl_unused',
        // Nothing listens there: the agent keeps trying to register, which is all this test needs.
        SVC_API_URL: `http://127.0.0.1:${await freePort()}`,
        AGENT_HEALTH_PORT: String(await freePort()),
      },
    })
    let out = ''
    child.stdout?.on('data', (chunk) => {
      out += chunk
    })
    while (!out.includes('started:')) await new Promise((done) => setTimeout(done, 20))
    assert.match(out, /script caches cleared \(.*svc-playwright-cache\)/)
    // The pool makes the cache root again as it starts: what was in it is gone.
    assert.equal(existsSync(join(cache, 'entry')), false)
    assert.equal(existsSync(cache), false)
  } finally {
    // The agent writes in its TMPDIR until it is gone.
    if (child?.kill('SIGKILL')) await new Promise((done) => child?.once('exit', done))
    rmSync(tmp, { recursive: true, force: true })
  }
})

test('a log sink that goes away (EPIPE) neither spins nor stalls the agent: probes answer, SIGTERM exits', async () => {
  const healthPort = await freePort()
  // Drops every connection: the agent keeps logging failed heartbeats into the closed pipe.
  let heartbeats = 0
  const api = createServer((request) => {
    if (request.url === '/agent/v1/heartbeat') heartbeats++
    request.socket.destroy()
  })
  const { url: apiUrl } = await listenOnLoopback(api)
  const child = spawn(...node([]), {
    env: {
      ...BASE_ENV,
      API_KEY: 'svc_pl_unused',
      SVC_API_URL: apiUrl,
      AGENT_HEALTH_PORT: String(healthPort),
    },
  })
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
  try {
    let out = ''
    child.stdout?.on('data', (chunk) => {
      out += chunk
    })
    while (!out.includes('started:')) await new Promise((done) => setTimeout(done, 20))
    // The reader of its stdout and stderr dies (a log collector restarting, `| head`).
    child.stdout?.destroy()
    child.stderr?.destroy()
    const probe = async () => {
      const response = await fetch(`http://127.0.0.1:${healthPort}/-/liveness`, {
        signal: AbortSignal.timeout(10_000),
      })
      return response.status
    }
    // Each failed heartbeat is logged before the next is sent: the second heartbeat from now comes after
    // a failure was logged into the closed pipe.
    const closedAt = heartbeats
    while (heartbeats < closedAt + 2) await new Promise((done) => setTimeout(done, 20))
    assert.equal(await probe(), 200)
    child.kill('SIGTERM')
    const code = await Promise.race([exited, new Promise((done) => setTimeout(() => done('hung'), 30_000))])
    assert.equal(code, 0)
  } finally {
    child.kill('SIGKILL')
    api.close()
  }
})

/** A plain HTTP server (not svc) that answers every request with `status` and an HTML page. */
async function htmlServer(status: number): Promise<{ url: string; paths: string[]; server: Server }> {
  const paths: string[] = []
  const server = createServer((request, response) => {
    paths.push(`${request.method} ${request.url}`)
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
    response.end('<!DOCTYPE html>\n<html><body><h1>Welcome to nginx!</h1></body></html>\n')
  })
  const { url } = await listenOnLoopback(server)
  return { url, paths, server }
}

test('an SVC_API_URL that is not svc (404 or 200 with a web page): the agent says what it got there and exits 1', async () => {
  for (const status of [404, 200]) {
    const other = await htmlServer(status)
    try {
      const child = spawn(...node([]), {
        env: {
          ...BASE_ENV,
          API_KEY: 'svc_pl_some-key',
          SVC_API_URL: other.url,
          AGENT_HEALTH_PORT: String(await freePort()),
        },
      })
      let err = ''
      child.stderr?.on('data', (chunk) => {
        err += chunk
      })
      const exited = new Promise<number | null>((done) => child.on('exit', (exitCode) => done(exitCode)))
      // A give-up for an agent that keeps retrying (as it did), not a timing assertion.
      const code = await Promise.race([exited, new Promise((done) => setTimeout(() => done('hung'), 60_000))])
      child.kill('SIGKILL')
      assert.equal(code, 1, err)
      assert.match(
        err,
        new RegExp(
          `error SVC_API_URL ${other.url} is not an svc server: POST /agent/v1/heartbeat answered HTTP ${status} ` +
            'with a text/html body: "<!DOCTYPE html> <html><body><h1>Welcome to nginx!</h1></body></html>"\\. ' +
            'Set SVC_API_URL to the base URL of the svc server',
        ),
      )
      assert.deepEqual(other.paths, ['POST /agent/v1/heartbeat'], 'no retries')
      assert.ok(!err.includes('svc_pl_some-key'), 'the key is not printed')
    } finally {
      other.server.close()
    }
  }
})

test('a 5xx web page (a proxy in front of a restarting svc) is retried, not taken for another server', async () => {
  const proxy = await htmlServer(502)
  const child = spawn(...node([]), {
    env: {
      ...BASE_ENV,
      API_KEY: 'svc_pl_some-key',
      SVC_API_URL: proxy.url,
      AGENT_HEALTH_PORT: String(await freePort()),
    },
  })
  try {
    let err = ''
    child.stderr?.on('data', (chunk) => {
      err += chunk
    })
    while (proxy.paths.length < 3) await new Promise((done) => setTimeout(done, 20))
    assert.equal(child.exitCode, null, err)
    assert.match(err, /warn heartbeat failed: heartbeat: HTTP 502 \(a text\/html body: "<!DOCTYPE html>/)
    assert.ok(!err.includes('is not an svc server'))
  } finally {
    child.kill('SIGKILL')
    proxy.server.close()
  }
})
