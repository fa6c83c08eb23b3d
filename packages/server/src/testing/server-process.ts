import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort } from '@svc/runner/testing'

export { freePort }

const REPO_ROOT = resolve(import.meta.dirname, '../../../..')
const MAIN = join(REPO_ROOT, 'packages/server/src/main.ts')
const COMPILE_CACHE_PRELOAD = join(REPO_ROOT, 'packages/core/src/compile-cache.js')
/**
 * A 2 MB young generation keeps a busy server's RSS ~140 MB lower (bench:runner with 10,000 checks: 276
 * vs 415 MB) at no measurable cost in drift. Growing the old generation by half its live size between
 * full collections (V8 otherwise lets it reach ~130 MB before the first, then keeps the freed pages
 * pooled) took the peak from 274–354 MB to 212–230 MB, with pings no slower. The compile cache as
 * `npm start` has it (the tests' NODE_COMPILE_CACHE wins over its default place).
 */
export const NODE_FLAGS = [
  '--disable-warning=ExperimentalWarning',
  '--max-semi-space-size=2',
  '--heap-growing-percent=50',
  '--import',
  COMPILE_CACHE_PRELOAD,
]
const RUNNER_MAIN = join(REPO_ROOT, 'packages/server/src/runner-main.ts')

/**
 * Servers and runners started here and still running. A test or bench that throws before it stops its
 * server would leave that server running, holding its port and store (bench:api did, at its 101st key):
 * every one goes when this process exits, however.
 */
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const left of running) left.kill('SIGKILL')
})

function killedOnExit(child: ChildProcess): void {
  running.add(child)
  child.once('exit', () => running.delete(child))
}

export interface ServerProcess {
  url: string
  child: ChildProcess
  /** Printed on first start only. */
  accountId: string | undefined
  apiKey: string | undefined
  output(): string
  /**
   * Resolves once the output holds `text`: logs (written asynchronously) may arrive after the lines the
   * server prints when ready. Rejects with the output after `timeoutMs`.
   */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>
  /** Sends `signal` and resolves with the exit code (null when killed by the signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/**
 * The env of one deployment's server processes on the test store at `storeUrl`: the store, and an
 * encryption key and first API key made here (every process of it must share them; tests call with the key).
 */
export function deploymentEnv(storeUrl: string) {
  return {
    ...storeEnv(storeUrl),
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SVC_BOOTSTRAP_API_KEY: `svc_${randomBytes(32).toString('base64url')}`,
  }
}

/** The env that points a server process at an isolated test store URL from `TestEngine.createUrl()`. */
export function storeEnv(storeUrl: string): Record<string, string> {
  if (storeUrl.startsWith('sqlite:')) return { SVC_DATA_DIR: resolve(storeUrl.slice('sqlite:'.length), '..') }
  return { DATABASE_URL: storeUrl, SVC_DATA_DIR: testDataDir() }
}

const createdDataDirs: string[] = []
/**
 * A data directory for a server process, removed when the test process exits: every suite run left
 * hundreds in /tmp, and a machine's /tmp is what a sandbox test lists.
 */
export function testDataDir(): string {
  if (createdDataDirs.length === 0) {
    process.once('exit', () => {
      for (const dir of createdDataDirs) rmSync(dir, { recursive: true, force: true })
    })
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-data-'))
  createdDataDirs.push(dir)
  return dir
}

/**
 * How long a process may take to start before the test gives up on it: a safety net for a hang, not a
 * timing limit. Starting took over 30 s on a 2-core machine under a load average of 30.
 */
const START_TIMEOUT_MS = 120_000

/** Starts `packages/server/src/main.ts` as a real process and waits until it serves. */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = START_TIMEOUT_MS,
): Promise<ServerProcess> {
  const port = env.PORT ?? String(await freePort())
  return startProcess(MAIN, [], { ...env, PORT: port }, 'API docs:', timeoutMs, `http://127.0.0.1:${port}`)
}

/** Starts a runner-only process (`npm run runner -- --location ...`) and waits until it runs. */
export async function startRunnerProcess(
  env: Record<string, string>,
  locations: string[],
  timeoutMs = START_TIMEOUT_MS,
): Promise<ServerProcess> {
  const args = locations.flatMap((location) => ['--location', location])
  return startProcess(RUNNER_MAIN, args, env, 'svc runner is running', timeoutMs, '')
}

async function startProcess(
  entry: string,
  args: string[],
  env: Record<string, string>,
  readyMarker: string,
  timeoutMs: number,
  url: string,
): Promise<ServerProcess> {
  // The same flags as the npm scripts that start servers and runners (package.json). Extra flags for
  // profiling a bench's server (`--cpu-prof` is refused in NODE_OPTIONS) come from SVC_BENCH_NODE_FLAGS.
  const extraFlags = process.env.SVC_BENCH_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []
  const child = spawn(process.execPath, [...NODE_FLAGS, ...extraFlags, entry, ...args], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      ...env,
      SVC_DATA_DIR: env.SVC_DATA_DIR ?? testDataDir(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  killedOnExit(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))

  await new Promise<void>((ready, fail) => {
    // Not left running after a failed start: it would hold its port and store, and keep the test
    // process (and CI) waiting on it.
    const timer = setTimeout(() => {
      clearInterval(poll)
      child.kill('SIGKILL')
      fail(new Error(`server did not start in ${timeoutMs} ms:\n${stdout}\n${stderr}`))
    }, timeoutMs)
    const poll = setInterval(() => {
      if (stdout.includes(readyMarker)) {
        clearInterval(poll)
        clearTimeout(timer)
        ready()
      }
    }, 20)
    void exited.then((code) => {
      clearInterval(poll)
      clearTimeout(timer)
      fail(new Error(`${entry} exited with ${code} before it was ready:\n${stdout}\n${stderr}`))
    })
  })

  return {
    url,
    child,
    accountId: stdout.match(/account id: (\S+)/)?.[1],
    apiKey: stdout.match(/API key: +(svc_\S+)/)?.[1],
    output: () => stdout + stderr,
    waitForOutput: (text, waitMs = 10_000) =>
      new Promise<void>((found, fail) => {
        const check = () => {
          if (!(stdout + stderr).includes(text)) return
          stop()
          found()
        }
        const timer = setTimeout(() => {
          stop()
          fail(
            new Error(`no ${JSON.stringify(text)} in the output within ${waitMs} ms:\n${stdout}\n${stderr}`),
          )
        }, waitMs)
        const stop = () => {
          clearTimeout(timer)
          child.stdout?.off('data', check)
          child.stderr?.off('data', check)
        }
        child.stdout?.on('data', check)
        child.stderr?.on('data', check)
        check()
      }),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill(signal)
      return exited
    },
  }
}
