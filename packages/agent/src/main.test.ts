import assert from 'node:assert/strict'
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { freePort } from '@svc/runner/testing'

const MAIN = join(import.meta.dirname, 'main.ts')
const node = (args: string[]) =>
  [process.execPath, ['--disable-warning=ExperimentalWarning', MAIN, ...args]] as const

test('without API_KEY the agent says so and exits 1; unknown options too', () => {
  const missing = spawnSync(...node([]), {
    env: { PATH: process.env.PATH },
    encoding: 'utf8',
    timeout: 30_000,
  })
  assert.equal(missing.status, 1)
  assert.match(missing.stderr, /^svc agent: API_KEY is not set/)
  const unknown = spawnSync(...node(['--frobnicate']), {
    env: { PATH: process.env.PATH, API_KEY: 'k' },
    encoding: 'utf8',
    timeout: 30_000,
  })
  assert.equal(unknown.status, 1)
  assert.match(unknown.stderr, /Unknown option '--frobnicate'.*usage: npm run agent \[-- --refresh-cache\]/)
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
        PATH: process.env.PATH,
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
    assert.equal(existsSync(join(tmp, 'svc-playwright-cache')), false)
  } finally {
    child?.kill('SIGKILL')
  }
})

test('a log sink that goes away (EPIPE) neither spins nor stalls the agent: probes answer, SIGTERM exits', async () => {
  const healthPort = await freePort()
  const child = spawn(...node([]), {
    env: {
      PATH: process.env.PATH,
      API_KEY: 'svc_pl_unused',
      // Nothing listens there: the agent keeps logging failed heartbeats into the closed pipe.
      SVC_API_URL: `http://127.0.0.1:${await freePort()}`,
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
    // Failed heartbeats are logged every ~0.5-1 s at start: a few have met the closed pipe by now.
    await new Promise((done) => setTimeout(done, 3_000))
    assert.equal(await probe(), 200)
    child.kill('SIGTERM')
    const code = await Promise.race([exited, new Promise((done) => setTimeout(() => done('hung'), 30_000))])
    assert.equal(code, 0)
  } finally {
    child.kill('SIGKILL')
  }
})
