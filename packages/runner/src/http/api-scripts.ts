import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { ApiScript, ApiScripts } from '@svc/core'
import { ALLOWED_PACKAGES } from '../playwright/imports.ts'
import type { PlaywrightPool } from '../playwright/pool.ts'
import { MAX_LOG_CHARS, MAX_LOG_TEXT, MAX_LOGS } from '../playwright/run-settings.ts'
import type { JobLog, JobLogEntry, RunError } from '../types.ts'

const HOST_SCRIPT = fileURLToPath(new URL('./child/api-script-host.cjs', import.meta.url))
/** What the host prefixes its answers with on stdout. */
const MARK = 'svc-api-script:'
/** Each phase's scripts together, as the hosted product allows each of its setup and teardown scripts. */
export const API_SCRIPT_TIMEOUT_MS = 10_000
const PATH = '/usr/local/bin:/usr/bin:/bin'

/** The request as a setup script sees and changes it (the hosted product's `request`). */
export interface ScriptRequest {
  method: string
  url: string
  headers: Record<string, string>
  queryParameters: Record<string, string>
  body: string
}

/** The response as a teardown script sees and changes it (the hosted product's `response`). */
export interface ScriptResponse {
  statusCode: number
  statusText: string
  headers: Record<string, string>
  body: string
}

type Phase = 'setup' | 'tearDown'
export type PhaseAnswer<T> = { value: T } | { error: RunError }
type Reply = { logs?: JobLogEntry[]; error?: { script: string; message: string }; [key: string]: unknown }

const PHASE_WORDS: Record<Phase, string> = { setup: 'Setup', tearDown: 'Teardown' }

/**
 * The scripts of one API check run, in one child Node process started on the first phase (in the pool's
 * sandbox where it works, so they see neither the server's environment nor its files), stopped by
 * `close`. Each phase has API_SCRIPT_TIMEOUT_MS; past it the process is killed.
 */
export class ApiScriptRun {
  readonly jobLog: JobLog = { setup: [], tearDown: [] }
  readonly #scripts: ApiScripts
  readonly #pool: PlaywrightPool | undefined
  readonly #signal: AbortSignal | undefined
  readonly #timeoutMs: number
  #child: ChildProcess | null = null
  /** Frees the pool slot the process holds: script processes count against the pool's concurrency. */
  #release: (() => void) | null = null
  #waiting: ((reply: Reply | { ended: string }) => void) | null = null
  #ended: string | null = null
  #stderr = ''
  #closed = false

  constructor(
    scripts: ApiScripts,
    options: { pool?: PlaywrightPool; signal?: AbortSignal; timeoutMs?: number },
  ) {
    this.#scripts = scripts
    this.#pool = options.pool
    this.#signal = options.signal
    this.#timeoutMs = options.timeoutMs ?? API_SCRIPT_TIMEOUT_MS
  }

  setup(request: ScriptRequest): Promise<PhaseAnswer<ScriptRequest>> {
    return this.#phase('setup', { request }, (reply) => requestFrom(reply.request, request))
  }

  tearDown(response: ScriptResponse): Promise<PhaseAnswer<ScriptResponse>> {
    return this.#phase('tearDown', { response }, (reply) => responseFrom(reply.response, response))
  }

  /** Stops the process and whatever the scripts left running. */
  close(): void {
    const pid = this.#child?.pid
    // Once only: the group's id may belong to another process later.
    if (pid && !this.#closed) killGroup(pid)
    this.#closed = true
    this.#release?.()
  }

  async #phase<T>(phase: Phase, input: object, read: (reply: Reply) => T | string): Promise<PhaseAnswer<T>> {
    const scripts: ApiScript[] = this.#scripts[phase]
    let child: ChildProcess
    try {
      child = this.#child ?? (await this.#start())
    } catch (error) {
      const message = `${PHASE_WORDS[phase]} scripts could not start: ${(error as Error).message}`
      return { error: { type: 'INTERNAL', message } }
    }
    const reply = await this.#ask(child, JSON.stringify({ scripts, ...input }))
    if ('ended' in reply)
      return { error: { type: 'SCRIPT', message: `${PHASE_WORDS[phase]} ${reply.ended}` } }
    this.jobLog[phase] = Array.isArray(reply.logs) ? reply.logs : []
    if (reply.error) {
      const message = `${PHASE_WORDS[phase]} failed in ${reply.error.script}: ${reply.error.message}`
      return { error: { type: 'SCRIPT', message } }
    }
    const value = read(reply)
    if (typeof value === 'string')
      return { error: { type: 'SCRIPT', message: `${PHASE_WORDS[phase]} left ${value}` } }
    return { value }
  }

  async #start(): Promise<ChildProcess> {
    if (!this.#pool) throw new Error('this runner has no script pool')
    const status = await this.#pool.start()
    // As many script processes at once as the pool runs browser checks, however many API checks have scripts.
    this.#release = (await this.#pool.acquire(this.#signal)).release
    if (this.#closed) {
      this.#release()
      throw new Error('the run was closed')
    }
    const limits = {
      maxLogs: MAX_LOGS,
      maxLogText: MAX_LOG_TEXT,
      maxLogChars: MAX_LOG_CHARS,
      allowedPackages: ALLOWED_PACKAGES,
    }
    const [command, args] = await this.#pool.commandOf(process.execPath, [
      `--max-old-space-size=${this.#pool.heapLimitMb}`,
      HOST_SCRIPT,
      JSON.stringify(limits),
    ])
    // The check's variables and nothing of the runner's own environment.
    const env: Record<string, string> = { ...this.#scripts.environment, PATH, NODE_OPTIONS: '' }
    if (!status.sandboxed) env.SVC_PARENT_PID = String(process.pid)
    const child = spawn(command, args, { cwd: '/', env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
    this.#child = child
    child.once('exit', () => this.#release?.())
    this.#listen(child)
    return child
  }

  #listen(child: ChildProcess): void {
    let rest = ''
    child.stdout?.setEncoding('utf8')
    child.stdout?.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) if (line.startsWith(MARK)) this.#answer(parsedReply(line.slice(MARK.length)))
    })
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4096)
    })
    child.stdin?.on('error', () => {})
    const ended = (why: string) => {
      this.#ended ??= why
      this.#answer({ ended: this.#ended })
    }
    child.once('error', (error) => ended(`scripts could not run: ${error.message}`))
    child.once('exit', (code, signal) => {
      const said = this.#stderr.trim().split('\n').pop()
      ended(`scripts ended their process (${code ?? signal})${said ? `: ${said}` : ''}`)
    })
  }

  #answer(reply: Reply | { ended: string }): void {
    const waiting = this.#waiting
    this.#waiting = null
    waiting?.(reply)
  }

  #ask(child: ChildProcess, message: string): Promise<Reply | { ended: string }> {
    if (this.#ended) return Promise.resolve({ ended: this.#ended })
    return new Promise((resolve) => {
      const stop = (why: string) => {
        this.#ended = why
        this.close()
      }
      const timer = setTimeout(
        () => stop(`scripts were stopped after ${this.#timeoutMs / 1000} s (their time limit)`),
        this.#timeoutMs,
      )
      const cancel = () => stop('scripts were stopped: the run was cancelled')
      this.#signal?.addEventListener('abort', cancel, { once: true })
      this.#waiting = (reply) => {
        clearTimeout(timer)
        this.#signal?.removeEventListener('abort', cancel)
        resolve(reply)
      }
      child.stdin?.write(`${message}\n`)
    })
  }
}

function requestFrom(value: unknown, before: ScriptRequest): ScriptRequest | string {
  if (!isObject(value)) return 'request not an object'
  const headers = value.headers ?? {}
  const queryParameters = value.queryParameters ?? {}
  if (!isObject(headers)) return 'request.headers not an object'
  if (!isObject(queryParameters)) return 'request.queryParameters not an object'
  return {
    method: String(value.method ?? before.method).toUpperCase(),
    url: String(value.url ?? before.url),
    headers: stringValues(headers),
    queryParameters: stringValues(queryParameters),
    body: value.body == null ? '' : String(value.body),
  }
}

function responseFrom(value: unknown, before: ScriptResponse): ScriptResponse | string {
  if (!isObject(value)) return 'response not an object'
  const headers = value.headers ?? {}
  if (!isObject(headers)) return 'response.headers not an object'
  const statusCode = Number(value.statusCode ?? before.statusCode)
  if (!Number.isInteger(statusCode) || statusCode < 0 || statusCode > 999)
    return `response.statusCode ${JSON.stringify(value.statusCode)}, not an HTTP status`
  return {
    statusCode,
    statusText: String(value.statusText ?? before.statusText),
    headers: Object.fromEntries(Object.entries(stringValues(headers)).map(([k, v]) => [k.toLowerCase(), v])),
    body: value.body == null ? '' : typeof value.body === 'string' ? value.body : JSON.stringify(value.body),
  }
}

/** A line a script wrote itself that looks like an answer but doesn't parse is an answer without a value. */
function parsedReply(text: string): Reply {
  try {
    const reply = JSON.parse(text)
    return isObject(reply) ? reply : {}
  } catch {
    return {}
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringValues(object: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, String(value)]))
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {}
}
