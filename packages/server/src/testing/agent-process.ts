import { type ChildProcess, spawn } from 'node:child_process'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '@svc/runner/testing'
import { NODE_FLAGS } from './server-process.ts'

const REPO_ROOT = resolve(import.meta.dirname, '../../../..')
const AGENT_MAIN = join(REPO_ROOT, 'packages/agent/src/main.ts')

export interface AgentProcess {
  child: ChildProcess
  /** The id it chose (read from its start line; empty until printed). */
  readonly id: string
  /** Base URL of its health probes. */
  healthUrl: string
  /** GET a probe path; the status code, or null when nothing answers. */
  probe(path: string): Promise<number | null>
  output(): string
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/**
 * Starts `packages/agent/src/main.ts` (`npm run agent`) as a real process with `env` only (plus PATH,
 * HOME and the tests' compile cache, which `npm test` keeps out of the temporary directory), and waits
 * until its readiness probe says 200 (`wait: 'ready'`, the default), until it serves its probes at all
 * (`'live'`), or not at all (`'none'`).
 */
export async function startAgentProcess(
  env: Record<string, string>,
  options: { wait?: 'ready' | 'live' | 'none'; timeoutMs?: number } = {},
): Promise<AgentProcess> {
  const port = env.AGENT_HEALTH_PORT ?? String(await freePort())
  const child = spawn(process.execPath, [...NODE_FLAGS, AGENT_MAIN], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
      ...env,
      AGENT_HEALTH_PORT: port,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (chunk) => {
    out += chunk
  })
  child.stderr.on('data', (chunk) => {
    out += chunk
  })
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
  const healthUrl = `http://127.0.0.1:${port}`
  const probe = async (path: string) => {
    try {
      const response = await fetch(`${healthUrl}${path}`, { signal: AbortSignal.timeout(5_000) })
      await response.arrayBuffer()
      return response.status
    } catch {
      return null
    }
  }
  const agent: AgentProcess = {
    child,
    get id() {
      return /svc agent \S+ \(([0-9a-f-]{36})\) started/.exec(out)?.[1] ?? ''
    },
    healthUrl,
    probe,
    output: () => out,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill(signal)
      return exited
    },
  }
  const wait = options.wait ?? 'ready'
  if (wait === 'none') return agent
  const deadline = Date.now() + (options.timeoutMs ?? 30_000)
  let gone = false
  void exited.then(() => {
    gone = true
  })
  for (;;) {
    if (gone) throw new Error(`the agent exited with ${child.exitCode} before it was ready:\n${out}`)
    const status = await probe(wait === 'live' ? '/-/liveness' : '/-/readiness')
    if (status === 200) return agent
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`the agent was not ready in time:\n${out}`)
    }
    await sleep(50)
  }
}
