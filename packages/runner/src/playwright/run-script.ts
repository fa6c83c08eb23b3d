import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { findPackageJSON } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  DEFAULT_RUNTIME_ID,
  RUNTIME_IDS,
  type RuntimeId,
  type ScriptProject,
  Scrubber,
  scriptProjectOf,
  scrubHeaders,
} from '@svc/core'
import type { RunError, RunErrorType, RunnerContext } from '../types.ts'
import { timedVerdict } from '../types.ts'
import { scrubTrace } from './artifacts.ts'
import { ffmpegPath } from './ffmpeg.ts'
import { ALLOWED_PACKAGES, forbiddenImport } from './imports.ts'
import type { BrowserLease } from './pool.ts'
import { type PlaywrightProxy, playwrightProxyOf, proxySecretsOf } from './proxy.ts'
import { sandboxRefusal } from './sandbox.ts'
import type {
  ArtifactFile,
  LogEntry,
  NetworkEntry,
  PageResult,
  Screenshot,
  ScriptCheckResult,
  ScriptCheckType,
  ScriptError,
  ScriptJob,
  ScriptRunnerContext,
  ScriptRunResult,
  StepOutcome,
  TestOutcome,
  WebVitalName,
  WebVitals,
} from './types.ts'
import { WEB_VITALS } from './types.ts'

export const DEFAULT_TIMEOUTS_MS: Record<ScriptCheckType, number> = {
  BROWSER: 120_000,
  MULTI_STEP: 120_000,
  AUTOMATION: 240_000,
}
const MAX_LOGS = 1000
const MAX_NETWORK = 1000
const MAX_MESSAGE = 4000
/** One log entry or script error keeps this much text; a run's logs keep at most MAX_LOG_CHARS. */
const MAX_LOG_TEXT = 16 * 1024
const MAX_LOG_CHARS = 1024 * 1024
/** After its global timeout Playwright needs a moment to report; a run still going then is killed. */
const TEST_RUNNER_GRACE_MS = 20_000
/**
 * A check's test times out first, so it is reported with its steps, screenshot and trace; the global
 * timeout, later, only stops a run whose teardown hangs too. It counts from the runner's start, so it
 * also covers starting Playwright's worker and browser, which took over 5 s on a busy 2-core machine.
 */
const TEARDOWN_GRACE_MS = 15_000
const MEMORY_SAMPLE_MS = 1000
/** A cancelled test run gets this long to stop its tests and write their traces before it is killed. */
const CANCEL_GRACE_MS = 5_000

const here = dirname(fileURLToPath(import.meta.url))
const PRELOAD = join(here, 'child', 'preload.cjs')
const REPORTER = join(here, 'child', 'reporter.cjs')
const PLAYWRIGHT_CLI = join(dirname(findPackageJSON('playwright', import.meta.url) as string), 'cli.js')
const NODE_MODULES = dirname(dirname(dirname(findPackageJSON('@playwright/test', import.meta.url) as string)))

/**
 * svc's own test, run once per account before its first sandboxed run to fill the compile cache that
 * the account's sandboxed runs only read: the test runner, its worker, the TypeScript transform, a page and a
 * trace, nothing of any check's.
 */
const WARM_UP_JOB: ScriptJob = {
  name: 'svc compile cache warm-up',
  runLocation: 'local',
  scriptPath: 'warm-up.spec.ts',
  script: `import { test, type Page } from '@playwright/test'
test('warm-up', async ({ page }: { page: Page }) => {
  await page.setContent('<p>svc</p>')
})
`,
}

/** Runs one attempt of a BROWSER, MULTI_STEP or AUTOMATION check. Never throws for a failing script. */
export async function runScriptCheck(
  checkType: ScriptCheckType,
  job: ScriptJob,
  ctx: ScriptRunnerContext,
): Promise<ScriptRunResult> {
  const accountId = job.accountId ?? ''
  const warmedUp = ctx.playwright.warmUp(accountId, () =>
    runScript(
      'MULTI_STEP',
      { ...WARM_UP_JOB, accountId },
      { now: ctx.now, playwright: ctx.playwright, artifactsDir: '' },
      true,
    ),
  )
  // A run cancelled meanwhile doesn't wait for the account's warm-up (which may wait for a slot).
  await (ctx.signal ? Promise.race([warmedUp, abortedOf(ctx.signal)]) : warmedUp)
  return runScript(checkType, job, ctx, false)
}

/** `warmUp`: the account's warm-up, which may write its compile cache and stores no artifacts. */
async function runScript(
  checkType: ScriptCheckType,
  job: ScriptJob,
  ctx: ScriptRunnerContext,
  warmUp: boolean,
): Promise<ScriptRunResult> {
  let startedAt = ctx.now()
  let started = performance.now()
  const runtimeId = (job.runtimeId ?? DEFAULT_RUNTIME_ID) as RuntimeId
  let proxy: PlaywrightProxy | null = null
  let proxyError: string | null = null
  try {
    proxy = playwrightProxyOf(ctx.proxy)
  } catch {
    // Not the URL itself: it may hold credentials.
    proxyError = 'The proxy URL is not a valid URL'
  }
  const scrubber = new Scrubber([...secretsOf(job), ...proxySecretsOf(proxy)])
  const finish = (
    error: RunError | null,
    checkResult: ScriptCheckResult,
    responseTime?: number,
    invertible = true,
  ) => {
    const safeError = error && { ...error, message: scrubber.text(error.message).slice(0, MAX_MESSAGE) }
    const verdict = timedVerdict(
      { degradedResponseTime: Infinity, maxResponseTime: Infinity, shouldFail: job.shouldFail ?? false },
      { error: safeError, responseTime: responseTime ?? performance.now() - started, startedAt, invertible },
      ctx,
    )
    return { ...verdict, checkResult }
  }
  // A run refused before any test ran (no browser, no sandbox, a script that doesn't build) tested
  // nothing: shouldFail can't make a pass of it.
  const refuse = (type: RunErrorType, message: string) =>
    finish(
      { type, message },
      { ...emptyResult(runtimeId, 'test'), errors: [{ message, stack: null }] },
      undefined,
      false,
    )

  if (proxyError) return refuse('NETWORK_ERROR', proxyError)
  if (!RUNTIME_IDS.includes(runtimeId)) return refuse('SCRIPT', `Unknown runtime ${runtimeId}`)
  let project: ScriptProject
  try {
    project = scriptProjectOf(checkType, job)
  } catch (error) {
    return refuse('SCRIPT', (error as Error).message)
  }
  const forbidden = forbiddenImport(project.files, runtimeId)
  if (forbidden) return refuse('SCRIPT', forbidden)

  let lease: { slot: number; release: () => void }
  try {
    lease = await ctx.playwright.acquire(ctx.signal)
  } catch (error) {
    // Cancelled while it waited for a free slot: it stops now, not once another run ends.
    if (ctx.signal?.aborted) return cancelled(finish, runtimeId)
    throw error
  }
  const { slot, release } = lease
  let browser: BrowserLease | null = null
  let workDir: string | null = null
  try {
    const sandbox = await ctx.playwright.start()
    if (sandbox.mode === 'on' && !sandbox.sandboxed)
      return refuse('INTERNAL', sandboxRefusal(sandbox.problem as string))
    try {
      // The account's own Chromium: another account's run can't reach this one's pages.
      browser = await ctx.playwright.useBrowser(job.accountId ?? '', ctx.signal)
    } catch (error) {
      if (ctx.signal?.aborted) return cancelled(finish, runtimeId)
      // API-only multi-step checks don't need a browser.
      if (checkType !== 'MULTI_STEP') return refuse('INTERNAL', (error as Error).message)
    }
    const wsEndpoint = browser?.wsEndpoint ?? null
    // The run starts when it gets its slot and browser: time spent waiting for them is not the check's.
    startedAt = ctx.now()
    started = performance.now()
    // One path per slot, named by this process: a crashed process's directories are found and removed.
    workDir = join(ctx.playwright.workRoot, `svc-run-${process.pid}-${ctx.playwright.id}-${slot}`)
    await rm(workDir, { recursive: true, force: true })
    await mkdir(workDir, { recursive: true })
    workDir = await realpath(workDir)
    const run = await prepare(checkType, job, project, workDir, runtimeId, { wsEndpoint, proxy }, ctx)
    run.warmUp = warmUp
    // Outside the sandbox, the run's first process stops its group when this process is gone.
    if (!sandbox.sandboxed) run.env.SVC_PARENT_PID = String(process.pid)
    const timeoutMs = job.timeoutMs ?? DEFAULT_TIMEOUTS_MS[checkType]
    const exec = await execute(run, timeoutMs, ctx)
    const events = readEvents(run.eventsFile)
    const assembled = assemble(run, events, exec, timeoutMs, ctx)
    const artifacts = await storeArtifacts(warmUp ? [] : assembled.artifacts, ctx, scrubber)
    const checkResult = scrubResult(
      {
        ...assembled.result,
        screenshots: artifacts.screenshots,
        traces: artifacts.traces,
        videos: artifacts.videos,
        artifactsTruncated: artifacts.truncated,
      },
      scrubber,
    )
    const verdict = finish(assembled.error, checkResult, assembled.responseTime ?? exec.wallMs)
    // Stopped on request: neither a pass nor a failure, whatever the tests had reached.
    if (exec.cancelled) return { ...verdict, hasFailures: false, hasErrors: false, isCancelled: true }
    return verdict
  } catch (error) {
    return refuse('INTERNAL', `The run could not be carried out: ${(error as Error).message}`)
  } finally {
    browser?.release()
    // Gone before the slot is free: the next run in the slot makes the same path its own directory.
    if (workDir) await rm(workDir, { recursive: true, force: true }).catch(() => {})
    release()
  }
}

/** Settles (never rejects) once `signal` aborts. */
function abortedOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}

/**
 * A run cancelled before it began anywhere (queued for its turn, an agent or a retry): no test ran, as
 * for one cancelled while it waited for a slot.
 */
export function cancelledBeforeStart(job: Pick<ScriptJob, 'runtimeId'>, ctx: RunnerContext): ScriptRunResult {
  const startedAt = ctx.now()
  const finish = (error: RunError, checkResult: ScriptCheckResult) => ({
    ...timedVerdict(
      { degradedResponseTime: Infinity, maxResponseTime: Infinity, shouldFail: false },
      { error, responseTime: 0, startedAt },
      ctx,
    ),
    checkResult,
  })
  return cancelled(finish, job.runtimeId ?? DEFAULT_RUNTIME_ID)
}

/** Stopped before it began (while waiting for a slot or its browser): neither a pass nor a failure. */
function cancelled(
  finish: (error: RunError, checkResult: ScriptCheckResult) => ScriptRunResult,
  runtimeId: string,
): ScriptRunResult {
  const message = 'The run was cancelled'
  const result = finish(
    { type: 'CANCELLED', message },
    { ...emptyResult(runtimeId, 'test'), errors: [{ message, stack: null }] },
  )
  return { ...result, hasFailures: false, hasErrors: false, isCancelled: true }
}

function secretsOf(job: ScriptJob): string[] {
  const secrets = [...(job.secrets ?? [])]
  for (const variable of job.environmentVariables ?? []) {
    if (variable.secret || variable.locked || variable.key.startsWith('SVC_SECRET_'))
      secrets.push(variable.value)
  }
  return secrets
}

function emptyResult(runtimeId: string, mode: 'test' | 'script'): ScriptCheckResult {
  return {
    runtimeId,
    mode,
    tests: [],
    errors: [],
    logs: [],
    network: [],
    pages: [],
    screenshots: [],
    traces: [],
    videos: [],
    artifactsTruncated: false,
    notes: [],
  }
}

/** Plain scripts drive the browser themselves; the rest are @playwright/test tests. */
function usesTestRunner(source: string): boolean {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
  return (
    /['"]@playwright\/test['"]/.test(code) &&
    /(^|[^\w.$])test(\.(describe|only|skip|fixme|fail|slow|serial|parallel))*\s*\(/m.test(code)
  )
}

interface PreparedRun {
  checkType: ScriptCheckType
  mode: 'test' | 'script'
  workDir: string
  /** The account's compile cache (NODE_COMPILE_CACHE). */
  compileCache: string
  runtimeId: string
  eventsFile: string
  outputDir: string
  args: string[]
  env: Record<string, string>
  /** The account's warm-up writes the compile cache that its runs in the sandbox only read. */
  warmUp?: boolean
}

async function prepare(
  checkType: ScriptCheckType,
  job: ScriptJob,
  project: ScriptProject,
  workDir: string,
  runtimeId: string,
  browser: { wsEndpoint: string | null; proxy: PlaywrightProxy | null },
  ctx: ScriptRunnerContext,
): Promise<PreparedRun> {
  const { wsEndpoint, proxy } = browser
  // The account's own: no other account's run sees it.
  const compileCache = await ctx.playwright.compileCacheOf(job.accountId ?? '')
  const svcDir = join(workDir, '.svc')
  const outputDir = join(svcDir, 'test-results')
  await Promise.all(
    ['home', 'tmp', 'screenshots', 'traces'].map((name) => mkdir(join(svcDir, name), { recursive: true })),
  )
  for (const file of project.files) {
    const path = join(workDir, file.path)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, file.content)
  }
  await symlink(NODE_MODULES, join(workDir, 'node_modules'), 'dir')

  const entrySource = project.entry
    ? (project.files.find((f) => f.path === project.entry)?.content ?? '')
    : ''
  const mode = checkType === 'BROWSER' && !usesTestRunner(entrySource) ? 'script' : 'test'
  const eventsFile = join(svcDir, 'events.jsonl')
  const timeoutMs = job.timeoutMs ?? DEFAULT_TIMEOUTS_MS[checkType]
  const runConfig = join(svcDir, 'run.json')
  await writeFile(
    runConfig,
    JSON.stringify({
      mode: mode === 'script' ? 'plain' : 'test',
      runDir: workDir,
      eventsFile,
      screenshotsDir: join(svcDir, 'screenshots'),
      tracesDir: join(svcDir, 'traces'),
      outputDir,
      allowedPackages: ALLOWED_PACKAGES,
      runtimeId,
      proxy,
      maxPages: ctx.playwright.maxPages,
      // Without ffmpeg a test asking for a video runs without one (and says so) rather than failing.
      videos: ffmpegPath() !== null,
      // The child cuts longer texts before writing them (one more character tells they were cut).
      maxText: MAX_LOG_TEXT + 1,
    }),
  )

  let args: string[]
  if (mode === 'script') {
    args = [join(workDir, project.entry as string)]
  } else if (checkType === 'AUTOMATION') {
    // Beside the suite's config (its relative paths keep their meaning): the suite's own
    // globalTimeout applies, within the run's limit (a --global-timeout flag would overrule it).
    const configPath = join(workDir, project.configPath as string)
    const wrapper = join(dirname(configPath), '.svc.playwright.config.ts')
    await writeFile(
      wrapper,
      `import * as suite from ${JSON.stringify(`./${basename(configPath)}`)}
const config: any = (suite as any).default ?? suite
const limit = ${timeoutMs}
const proxy = ${JSON.stringify(proxy)}
export default {
  ...config,
  globalTimeout: config.globalTimeout > 0 ? Math.min(config.globalTimeout, limit) : limit,
  ...(proxy ? { use: { proxy, ...config.use } } : {}),
}
`,
    )
    args = [
      PLAYWRIGHT_CLI,
      'test',
      '--config',
      wrapper,
      '--reporter',
      REPORTER,
      '--trace',
      'on',
      '--output',
      outputDir,
      '--workers',
      '1',
      '--retries',
      '0',
      ...(job.grep ? ['--grep', job.grep] : []),
    ]
  } else {
    const configFile = join(svcDir, 'playwright.config.cjs')
    const entry = join(workDir, project.entry as string)
    await writeFile(
      configFile,
      `module.exports = ${JSON.stringify({
        testDir: workDir,
        timeout: timeoutMs,
        globalTimeout: timeoutMs + TEARDOWN_GRACE_MS,
        workers: 1,
        retries: 0,
        outputDir,
        reporter: [[REPORTER]],
        use: { trace: 'on', ...(proxy ? { proxy } : {}) },
      })}\nmodule.exports.testMatch = new RegExp(${JSON.stringify(`^${escapeRegExp(entry)}$`)})\n`,
    )
    args = [PLAYWRIGHT_CLI, 'test', '--config', configFile]
  }

  const env: Record<string, string> = {}
  for (const variable of job.environmentVariables ?? []) env[variable.key] = variable.value
  Object.assign(env, {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: join(svcDir, 'home'),
    TMPDIR: join(svcDir, 'tmp'),
    SVC: 'true',
    CI: 'true',
    SVC_CHECK_NAME: job.name,
    SVC_RUN_LOCATION: job.runLocation,
    SVC_RUNTIME_ID: runtimeId,
    SVC_RUN_CONFIG: runConfig,
    FORCE_COLOR: '0',
    // Compiled code shared by the account's runs saves most of a test run's start-up. Transformed
    // scripts are the run's own: they hold its script and config (the proxy's password).
    NODE_COMPILE_CACHE: compileCache,
    PLAYWRIGHT_TRANSFORM_CACHE_DIR: join(svcDir, 'transform-cache'),
    NODE_OPTIONS: `--require="${PRELOAD}" --max-old-space-size=${ctx.playwright.heapLimitMb} --disable-warning=ExperimentalWarning`,
  })
  // Only in the run's environment, never in its files: without the sandbox another run may read
  // those, and the endpoint opens every page of the browser.
  if (wsEndpoint) env.PW_TEST_CONNECT_WS_ENDPOINT = wsEndpoint
  return { checkType, mode, workDir, compileCache, runtimeId, eventsFile, outputDir, args, env }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

interface Execution {
  exitCode: number | null
  timedOut: boolean
  memoryExceeded: boolean
  cancelled: boolean
  stdout: { at: number; line: string }[]
  /** Lines of stdout past MAX_LOGS or MAX_LOG_CHARS, not kept. */
  stdoutDropped: number
  stderr: string
  wallMs: number
}

/** Runs the child in its own process group: a timeout or memory overrun kills the whole group. */
async function execute(run: PreparedRun, timeoutMs: number, ctx: ScriptRunnerContext): Promise<Execution> {
  const started = performance.now()
  // In the sandbox the run sees its own directory and its account's compile cache of the work root
  // and the temporary directories, no other run's files; only the warm-up may write the cache.
  const [command, args] = await ctx.playwright.commandOf(
    process.execPath,
    run.args,
    [run.workDir, run.compileCache],
    run.warmUp ? [] : [run.compileCache],
  )
  const child = spawn(command, args, {
    cwd: run.workDir,
    env: run.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const pid = child.pid as number
  const result: Execution = {
    exitCode: null,
    timedOut: false,
    memoryExceeded: false,
    cancelled: false,
    stdout: [],
    stdoutDropped: 0,
    stderr: '',
    wallMs: 0,
  }
  // A line keeps its first MAX_LOG_TEXT + 1 characters, so output without newlines stays bounded.
  let stdoutRest = ''
  let stdoutChars = 0
  const takeLine = (part: string) => {
    if (stdoutRest.length <= MAX_LOG_TEXT) stdoutRest += part.slice(0, MAX_LOG_TEXT + 1 - stdoutRest.length)
  }
  const endLine = () => {
    stdoutChars += stdoutRest.length
    if (result.stdout.length < MAX_LOGS && stdoutChars <= MAX_LOG_CHARS)
      result.stdout.push({ at: Date.now(), line: stdoutRest })
    else result.stdoutDropped++
    stdoutRest = ''
  }
  child.stdout?.setEncoding('utf8')
  child.stdout?.on('data', (chunk: string) => {
    const parts = chunk.split('\n')
    takeLine(parts[0] as string)
    for (const part of parts.slice(1)) {
      endLine()
      takeLine(part)
    }
  })
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (chunk: string) => {
    result.stderr = (result.stderr + chunk.slice(-64 * 1024)).slice(-64 * 1024)
  })
  const killGroup = () => {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {}
  }
  const limitMs = run.mode === 'test' ? timeoutMs + TEST_RUNNER_GRACE_MS : timeoutMs
  const timer = setTimeout(() => {
    result.timedOut = true
    killGroup()
  }, limitMs)
  const memoryLimit = ctx.playwright.memoryLimitMb * 1024 * 1024
  const sampler = setInterval(() => {
    if (groupRss(pid) > memoryLimit) {
      result.memoryExceeded = true
      killGroup()
    }
  }, MEMORY_SAMPLE_MS)
  let cancelGrace: NodeJS.Timeout | undefined
  const cancel = () => {
    result.cancelled = true
    if (run.mode === 'script') return killGroup()
    // As Ctrl-C would: Playwright stops the tests in flight and still reports them, with their traces.
    try {
      process.kill(-pid, 'SIGINT')
    } catch {}
    cancelGrace = setTimeout(killGroup, CANCEL_GRACE_MS)
  }
  if (ctx.signal?.aborted) cancel()
  ctx.signal?.addEventListener('abort', cancel, { once: true })
  const exitCode = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null))
    child.once('exit', (code) => resolve(code))
  })
  clearTimeout(timer)
  clearTimeout(cancelGrace)
  clearInterval(sampler)
  ctx.signal?.removeEventListener('abort', cancel)
  // Whatever the script left running (its own subprocesses, stuck workers) goes with it.
  killGroup()
  await new Promise<void>((resolve) => {
    if (child.stdout?.readableEnded && child.stderr?.readableEnded) return resolve()
    const guard = setTimeout(resolve, 2000)
    child.once('close', () => {
      clearTimeout(guard)
      resolve()
    })
  })
  if (stdoutRest) endLine()
  result.exitCode = exitCode
  result.wallMs = performance.now() - started
  return result
}

function groupRss(pgid: number): number {
  let total = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[2]) === pgid) total += Number(fields[21]) * 4096
    } catch {}
  }
  return total
}

type RunEvent = Record<string, unknown> & { type: string; at: number }

function readEvents(file: string): RunEvent[] {
  if (!existsSync(file)) return []
  const events: RunEvent[] = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue
    try {
      events.push(JSON.parse(line))
    } catch {}
  }
  return events
}

interface ArtifactCandidate {
  kind: 'screenshot' | 'trace' | 'video'
  file: string
  name: string | null
  pageIndex: number | null
  onFailure: boolean
}

interface Assembled {
  result: Omit<ScriptCheckResult, 'screenshots' | 'traces' | 'videos' | 'artifactsTruncated'>
  error: RunError | null
  responseTime: number | null
  artifacts: ArtifactCandidate[]
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g')

/** What a finished run left (its events and process outcome) as a check result and error; exported for its tests. */
export function assemble(
  run: PreparedRun,
  events: RunEvent[],
  exec: Execution,
  timeoutMs: number,
  ctx: ScriptRunnerContext,
): Assembled {
  // Paths read relative to the script's project; the server's own install paths never show.
  const clean = (text: string) =>
    text
      .replace(ANSI, '')
      .split(`file://${run.workDir}/`)
      .join('')
      .split(`${run.workDir}/`)
      .join('')
      .split(`${NODE_MODULES}/`)
      .join('node_modules/')
      .split(`${here}/`)
      .join('svc/')
  const errorOf = (value: { message?: unknown; stack?: unknown } | null | undefined): ScriptError => ({
    message: cut(clean(String(value?.message ?? 'Error'))),
    stack: typeof value?.stack === 'string' ? cut(clean(value.stack)) : null,
  })
  const pageIndexes = new Map<string, number>()
  const pageIndexOf = (id: unknown): number | null => {
    if (typeof id !== 'string') return null
    if (!pageIndexes.has(id)) pageIndexes.set(id, pageIndexes.size)
    return pageIndexes.get(id) as number
  }
  const time = (at: unknown) => new Date(typeof at === 'number' ? at : Date.now()).toISOString()
  const logs: LogEntry[] = []
  const network: NetworkEntry[] = []
  const pages = new Map<number, { url: string; vitals: Record<string, unknown> | null }>()
  const tests: TestOutcome[] = []
  const errors: ScriptError[] = []
  const notes: string[] = []
  const artifacts: ArtifactCandidate[] = []
  let scriptError: ScriptError | null = null
  let scriptDuration: number | null = null
  let endStatus: string | null = null
  const runnerErrors: ScriptError[] = []
  /** Tests begun and not (yet) ended: those a stopped run was still running. */
  const running = new Map<string, RunEvent>()
  /** Each test's last attempt (a script may retry with `test.describe.configure({ retries })`). */
  const lastAttempt = new Map<string, TestOutcome>()
  let droppedLogs = exec.stdoutDropped
  let cutLogs = 0
  let logChars = 0
  let droppedRequests = 0
  const log = (entry: LogEntry) => {
    const text = cut(entry.text)
    if (text !== entry.text) cutLogs++
    logChars += text.length
    if (logs.length < MAX_LOGS && logChars <= MAX_LOG_CHARS) logs.push({ ...entry, text })
    else droppedLogs++
  }

  for (const event of events) {
    switch (event.type) {
      case 'page': {
        const index = pageIndexOf(event.pageId) as number
        if (!pages.has(index)) pages.set(index, { url: String(event.url ?? ''), vitals: null })
        break
      }
      case 'vitals': {
        const index = pageIndexOf(event.pageId)
        if (index === null) break
        const vitals = event.vitals as Record<string, unknown>
        pages.set(index, { url: String(vitals.url ?? ''), vitals })
        break
      }
      case 'console':
        log({
          time: time(event.at),
          level: String(event.level),
          text: clean(String(event.text)),
          pageIndex: pageIndexOf(event.pageId),
        })
        break
      case 'stdout':
        log({
          time: time(event.at),
          level: String(event.level),
          text: clean(String(event.text)),
          pageIndex: null,
        })
        break
      case 'request':
        if (network.length >= MAX_NETWORK) {
          droppedRequests++
          break
        }
        network.push({
          pageIndex: pageIndexOf(event.pageId),
          url: String(event.url),
          method: String(event.method),
          resourceType: String(event.resourceType),
          status: typeof event.status === 'number' ? event.status : null,
          startedAt: time(event.startTime),
          duration: typeof event.duration === 'number' ? Math.round(event.duration) : null,
          failure: typeof event.failure === 'string' ? event.failure : null,
          requestHeaders: (event.requestHeaders as Record<string, string>) ?? null,
          responseHeaders: (event.responseHeaders as Record<string, string>) ?? null,
        })
        break
      case 'screenshot':
        artifacts.push({
          kind: 'screenshot',
          file: String(event.file),
          name: typeof event.name === 'string' ? event.name : null,
          pageIndex: pageIndexOf(event.pageId),
          onFailure: Boolean(event.failure),
        })
        break
      case 'trace':
        artifacts.push({
          kind: 'trace',
          file: String(event.file),
          name: null,
          pageIndex: null,
          onFailure: false,
        })
        break
      case 'limit':
        if (!notes.includes(String(event.message))) notes.push(String(event.message))
        break
      case 'scriptError':
        scriptError ??= errorOf(event as { message?: unknown; stack?: unknown })
        break
      case 'exit':
        scriptDuration = typeof event.duration === 'number' ? event.duration : null
        break
      case 'runnerError':
        runnerErrors.push(errorOf(event as { message?: unknown; stack?: unknown }))
        break
      case 'end':
        endStatus = String(event.status)
        break
      case 'testBegin':
        running.set(String(event.id), event)
        break
      case 'testEnd': {
        running.delete(String(event.id))
        const test = testOutcomeOf(event, errorOf, clean)
        tests.push(test)
        lastAttempt.set(String(event.id), test)
        const attachments = (event.attachments as { name: string; path: string; contentType: string }[]) ?? []
        for (const attachment of attachments) {
          if (attachment.name === 'trace') {
            artifacts.push({
              kind: 'trace',
              file: attachment.path,
              name: null,
              pageIndex: null,
              onFailure: false,
            })
          } else if (attachment.name === 'video' && attachment.contentType === 'video/webm') {
            // The config's `use.video`: one recording per page of the test.
            artifacts.push({
              kind: 'video',
              file: attachment.path,
              name: null,
              pageIndex: null,
              onFailure: false,
            })
          } else if (attachment.contentType === 'image/png') {
            // Playwright's own screenshots (`use.screenshot`), visual diffs and attached images.
            artifacts.push({
              kind: 'screenshot',
              file: attachment.path,
              name: basename(attachment.path),
              pageIndex: null,
              onFailure: test.failed,
            })
          }
        }
        break
      }
    }
  }
  // A retried test counts by its last attempt, as in Playwright's own outcome (passing late is flaky).
  const lastAttempts = new Set(lastAttempt.values())
  for (const test of tests) {
    if (lastAttempts.has(test)) continue
    test.failed = false
  }
  for (const [id, test] of lastAttempt) {
    const retry = (events.findLast((e) => e.type === 'testEnd' && e.id === id)?.retry as number) ?? 0
    if (retry > 0 && !test.failed) notes.push(`${test.titlePath.join(' › ')} passed on retry ${retry}`)
  }
  // A test the global timeout (or our kill) stopped: Playwright ends it as interrupted when its worker
  // stops in time, and reports nothing when the worker is killed first (a race a loaded machine loses).
  const stopped = [...lastAttempts].filter((test) => test.status === 'interrupted')
  for (const begun of running.values()) {
    const duration = Math.max(0, Date.now() - Date.parse(String(begun.startedAt)))
    const test = testOutcomeOf({ ...begun, status: 'interrupted', duration }, errorOf, clean)
    tests.push(test)
    stopped.push(test)
  }
  if (run.mode === 'script') {
    for (const { at, line } of exec.stdout)
      log({ time: time(at), level: 'info', text: clean(line), pageIndex: null })
  }
  if (cutLogs) notes.push(`${cutLogs} log entries cut to their first ${MAX_LOG_TEXT} characters`)
  if (droppedLogs)
    notes.push(
      `${droppedLogs} log entries left out (at most ${MAX_LOGS} entries, ${MAX_LOG_CHARS} characters)`,
    )
  if (droppedRequests) notes.push(`${droppedRequests} network requests left out (at most ${MAX_NETWORK})`)

  const stderrTail = clean(exec.stderr.trim()).split('\n').slice(-20).join('\n')
  // An error message says what went wrong: a crash's stack frames would push its first line out.
  const stderrSummary = clean(exec.stderr.trim())
    .split('\n')
    .filter((line) => line.trim() && !/^\s+at /.test(line))
    .slice(-20)
    .join('\n')
  // V8 aborts a process out of heap (the test worker or the script) with this on its stderr.
  const heapExhausted = [exec.stderr, ...logs.map((entry) => entry.text)].some((text) =>
    /FATAL ERROR: .*JavaScript heap out of memory/.test(text),
  )
  const stillRunning = stopped.length
    ? ` (still running: ${stopped.map((test) => test.titlePath.join(' › ')).join(', ')})`
    : ''
  let error: RunError | null = null
  if (exec.cancelled) {
    error = { type: 'CANCELLED', message: `The run was cancelled${stillRunning}` }
  } else if (exec.timedOut) {
    error = {
      type: 'TIMEOUT',
      message: `The run did not finish within ${timeoutMs / 1000} s and was stopped${stillRunning}`,
    }
  } else if (exec.memoryExceeded) {
    error = {
      type: 'SCRIPT',
      message: `The run used more than ${ctx.playwright.memoryLimitMb} MB of memory and was stopped`,
    }
  } else if (heapExhausted) {
    error = {
      type: 'SCRIPT',
      message: `The run used more than ${ctx.playwright.heapLimitMb} MB of JavaScript heap and was stopped`,
    }
  } else if (run.mode === 'test') {
    const failed = tests.find((test) => test.failed && test.status !== 'interrupted')
    if (failed) {
      const first = failed.errors[0]?.message ?? `${failed.status}`
      error = {
        type: failed.status === 'timedOut' ? 'TIMEOUT' : errorTypeOf(first),
        message: `${failed.titlePath.join(' › ')}: ${first}`,
      }
    } else if (endStatus === 'timedout') {
      // A suite's message names its own globalTimeout; a check's global timeout is its limit + grace.
      const suiteMessage = run.checkType === 'AUTOMATION' ? runnerErrors[0]?.message : undefined
      error = {
        type: 'TIMEOUT',
        message: `${suiteMessage ?? `The run did not finish within ${timeoutMs / 1000} s and was stopped`}${stillRunning}`,
      }
    } else if (runnerErrors.length) {
      error = { type: 'SCRIPT', message: runnerErrors[0]?.message as string }
    } else if (tests.length === 0) {
      error = { type: 'SCRIPT', message: `No tests ran${stderrSummary ? `: ${stderrSummary}` : ''}` }
    } else if (exec.exitCode !== 0) {
      error = {
        type: 'SCRIPT',
        message: `Playwright exited with code ${exec.exitCode}${stderrSummary ? `: ${stderrSummary}` : ''}`,
      }
    }
  } else if (scriptError) {
    error = { type: errorTypeOf(scriptError.message), message: scriptError.message }
  } else if (exec.exitCode !== 0) {
    error = {
      type: 'SCRIPT',
      message: `The script exited with code ${exec.exitCode}${stderrSummary ? `: ${stderrSummary}` : ''}`,
    }
  }
  if (run.mode === 'script' && exec.stderr.trim()) {
    for (const line of stderrTail.split('\n'))
      log({ time: new Date().toISOString(), level: 'error', text: line, pageIndex: null })
  }

  for (const test of tests) if (test.failed) errors.push(...test.errors)
  if (scriptError) errors.push(scriptError)
  errors.push(...runnerErrors)
  if (error && errors.length === 0) errors.push({ message: error.message, stack: null })
  if (exec.memoryExceeded) notes.push(`memory limit of ${ctx.playwright.memoryLimitMb} MB reached`)
  if (heapExhausted) notes.push(`JavaScript heap limit of ${ctx.playwright.heapLimitMb} MB reached`)

  const responseTime =
    run.mode === 'test'
      ? tests.length
        ? tests.reduce((sum, test) => sum + test.duration, 0)
        : null
      : scriptDuration
  return {
    result: {
      runtimeId: run.runtimeId,
      mode: run.mode,
      tests,
      errors,
      logs,
      network,
      pages: [...pages]
        .sort(([a], [b]) => a - b)
        .map(
          ([pageIndex, page]): PageResult => ({
            pageIndex,
            url: page.url,
            webVitals: webVitalsOf(page.vitals),
          }),
        ),
      notes,
    },
    error,
    responseTime,
    artifacts,
  }
}

/** Text past MAX_LOG_TEXT characters is cut, and says so. */
function cut(text: string): string {
  return text.length > MAX_LOG_TEXT
    ? `${text.slice(0, MAX_LOG_TEXT)}… (cut at ${MAX_LOG_TEXT} characters)`
    : text
}

function errorTypeOf(message: string): RunErrorType {
  return /^(Error: )?expect\(/.test(message.trim()) ? 'ASSERTION' : 'SCRIPT'
}

function testOutcomeOf(
  event: RunEvent,
  errorOf: (value: { message?: unknown; stack?: unknown }) => ScriptError,
  clean: (text: string) => string,
): TestOutcome {
  const location = event.location as { file?: string } | undefined
  const status = String(event.status) as TestOutcome['status']
  const stepOf = (step: Record<string, unknown>): StepOutcome => {
    const at = step.location as { file?: string; line?: number; column?: number } | null
    return {
      title: String(step.title),
      startedAt: String(step.startedAt),
      duration: Number(step.duration),
      status: step.status === 'failed' ? 'failed' : 'passed',
      error: step.error ? errorOf(step.error as { message?: unknown; stack?: unknown }) : null,
      location: at?.file ? clean(`${at.file}:${at.line}:${at.column}`) : null,
      steps: ((step.steps as Record<string, unknown>[]) ?? []).map(stepOf),
    }
  }
  return {
    title: String(event.title),
    titlePath: (event.titlePath as string[]) ?? [String(event.title)],
    file: clean(String(location?.file ?? '')),
    status,
    expectedStatus: String(event.expectedStatus),
    failed: status !== 'skipped' && status !== event.expectedStatus,
    startedAt: String(event.startedAt),
    duration: Number(event.duration),
    errors: ((event.errors as Record<string, unknown>[]) ?? []).map((e) => errorOf(e)),
    steps: ((event.steps as Record<string, unknown>[]) ?? []).map(stepOf),
  }
}

const THRESHOLDS: Record<WebVitalName, [number, number]> = {
  LCP: [2500, 4000],
  CLS: [0.1, 0.25],
  TBT: [200, 600],
  FCP: [1800, 3000],
  TTFB: [800, 1800],
}

function webVitalsOf(raw: Record<string, unknown> | null): WebVitals {
  const out = {} as WebVitals
  for (const name of WEB_VITALS) {
    const value = raw?.[name]
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      out[name] = null
      continue
    }
    const [good, poor] = THRESHOLDS[name]
    const rounded = name === 'CLS' ? Math.round(value * 10_000) / 10_000 : Math.round(value)
    out[name] = {
      value: rounded,
      score: value <= good ? 'GOOD' : value <= poor ? 'NEEDS_IMPROVEMENT' : 'POOR',
    }
  }
  return out
}

/**
 * Copies screenshots, then traces, then videos into artifactsDir (scrubbed where they can be) while they
 * fit the run's limit.
 */
async function storeArtifacts(
  candidates: ArtifactCandidate[],
  { artifactsDir, playwright }: ScriptRunnerContext,
  scrubber: Scrubber,
): Promise<{
  screenshots: Screenshot[]
  traces: ArtifactFile[]
  videos: ArtifactFile[]
  truncated: boolean
}> {
  const screenshots: Screenshot[] = []
  const traces: ArtifactFile[] = []
  const videos: ArtifactFile[] = []
  let total = 0
  let truncated = false
  const ordered = (['screenshot', 'trace', 'video'] as const).flatMap((kind) =>
    candidates.filter((c) => c.kind === kind),
  )
  if (ordered.length) await mkdir(artifactsDir, { recursive: true })
  for (const candidate of ordered) {
    let data: Buffer
    try {
      data = await readFile(candidate.file)
      // Traces are always rewritten: sensitive headers go even when no secret is set.
      if (candidate.kind === 'trace') data = scrubTrace(data, scrubber)
    } catch {
      continue
    }
    if (total + data.length > playwright.artifactLimitBytes) {
      truncated = true
      continue
    }
    total += data.length
    if (candidate.kind === 'screenshot') {
      const path = `screenshot-${screenshots.length + 1}.png`
      await writeFile(join(artifactsDir, path), data)
      screenshots.push({
        path,
        size: data.length,
        name: candidate.name,
        pageIndex: candidate.pageIndex,
        onFailure: candidate.onFailure,
      })
    } else if (candidate.kind === 'trace') {
      const path = `trace-${traces.length + 1}.zip`
      await writeFile(join(artifactsDir, path), data)
      traces.push({ path, size: data.length })
    } else {
      const path = `video-${videos.length + 1}.webm`
      await writeFile(join(artifactsDir, path), data)
      videos.push({ path, size: data.length })
    }
  }
  return { screenshots, traces, videos, truncated }
}

function scrubResult(result: ScriptCheckResult, scrubber: Scrubber): ScriptCheckResult {
  const network = result.network.map((entry) => ({
    ...entry,
    requestHeaders: scrubHeaders(entry.requestHeaders ?? undefined, scrubber) ?? null,
    responseHeaders: scrubHeaders(entry.responseHeaders ?? undefined, scrubber) ?? null,
  }))
  return scrubber.deep({ ...result, network })
}
