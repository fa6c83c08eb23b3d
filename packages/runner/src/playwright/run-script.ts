import { mkdir, realpath, rm } from 'node:fs/promises'
import { join } from 'node:path'
import {
  DEFAULT_RUNTIME_ID,
  RUNTIME_IDS,
  type RuntimeId,
  type ScriptProject,
  Scrubber,
  scriptProjectOf,
} from '@svc/core'
import type { RunError, RunErrorType, RunnerContext } from '../types.ts'
import { timedVerdict } from '../types.ts'
import { assemble } from './assemble.ts'
import { execute } from './execute-run.ts'
import { forbiddenImport } from './imports.ts'
import type { BrowserLease } from './pool.ts'
import { prepare } from './prepare-run.ts'
import { type PlaywrightProxy, playwrightProxyOf, proxySecretsOf } from './proxy.ts'
import { readEvents } from './run-events.ts'
import { DEFAULT_TIMEOUTS_MS, MAX_MESSAGE } from './run-settings.ts'
import { sandboxRefusal } from './sandbox.ts'
import { scrubResult, storeArtifacts } from './store-artifacts.ts'
import type {
  ScriptCheckResult,
  ScriptCheckType,
  ScriptJob,
  ScriptRunnerContext,
  ScriptRunResult,
} from './types.ts'

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
  const ending = new RunEnding(job, ctx, scrubber, runtimeId)
  if (proxyError) return ending.refuse('NETWORK_ERROR', proxyError)
  if (!RUNTIME_IDS.includes(runtimeId)) return ending.refuse('SCRIPT', `Unknown runtime ${runtimeId}`)
  let project: ScriptProject
  try {
    project = scriptProjectOf(checkType, job)
  } catch (error) {
    return ending.refuse('SCRIPT', (error as Error).message)
  }
  const forbidden = forbiddenImport(project.files, runtimeId)
  if (forbidden) return ending.refuse('SCRIPT', forbidden)

  let lease: { slot: number; release: () => void }
  try {
    lease = await ctx.playwright.acquire(ctx.signal)
  } catch (error) {
    // Cancelled while it waited for a free slot: it stops now, not once another run ends.
    if (ctx.signal?.aborted) return cancelled(ending.finish, runtimeId)
    throw error
  }
  try {
    return await runInSlot(checkType, job, project, ctx, { slot: lease.slot, ending, proxy, warmUp })
  } catch (error) {
    return ending.refuse('INTERNAL', `The run could not be carried out: ${(error as Error).message}`)
  } finally {
    lease.release()
  }
}

/** How a run ends: its verdict, timed from when it got its slot and browser, with secrets scrubbed. */
class RunEnding {
  readonly scrubber: Scrubber
  private readonly job: ScriptJob
  private readonly ctx: ScriptRunnerContext
  private readonly runtimeId: string
  private startedAt: Date
  private started = performance.now()

  constructor(job: ScriptJob, ctx: ScriptRunnerContext, scrubber: Scrubber, runtimeId: string) {
    this.job = job
    this.ctx = ctx
    this.scrubber = scrubber
    this.runtimeId = runtimeId
    this.startedAt = ctx.now()
  }

  /** Time spent waiting for a slot and a browser is not the check's. */
  startClock() {
    this.startedAt = this.ctx.now()
    this.started = performance.now()
  }

  finish = (
    error: RunError | null,
    checkResult: ScriptCheckResult,
    responseTime?: number,
    invertible = true,
  ) => {
    const safeError = error && { ...error, message: this.scrubber.text(error.message).slice(0, MAX_MESSAGE) }
    const verdict = timedVerdict(
      { degradedResponseTime: Infinity, maxResponseTime: Infinity, shouldFail: this.job.shouldFail ?? false },
      {
        error: safeError,
        responseTime: responseTime ?? performance.now() - this.started,
        startedAt: this.startedAt,
        invertible,
      },
      this.ctx,
    )
    return { ...verdict, checkResult }
  }

  /**
   * A run refused before any test ran (no browser, no sandbox, a script that doesn't build) tested
   * nothing: shouldFail can't make a pass of it.
   */
  refuse(type: RunErrorType, message: string) {
    return this.finish(
      { type, message },
      { ...emptyResult(this.runtimeId, 'test'), errors: [{ message, stack: null }] },
      undefined,
      false,
    )
  }
}

interface SlotRun {
  slot: number
  ending: RunEnding
  proxy: PlaywrightProxy | null
  warmUp: boolean
}

/** Runs the check in its slot: its browser, its work directory, the child, then its result. */
async function runInSlot(
  checkType: ScriptCheckType,
  job: ScriptJob,
  project: ScriptProject,
  ctx: ScriptRunnerContext,
  { slot, ending, proxy, warmUp }: SlotRun,
): Promise<ScriptRunResult> {
  const runtimeId = (job.runtimeId ?? DEFAULT_RUNTIME_ID) as RuntimeId
  let browser: BrowserLease | null = null
  let workDir: string | null = null
  try {
    const sandbox = await ctx.playwright.start()
    if (sandbox.mode === 'on' && !sandbox.sandboxed)
      return ending.refuse('INTERNAL', sandboxRefusal(sandbox.problem as string))
    try {
      // The account's own Chromium: another account's run can't reach this one's pages.
      browser = await ctx.playwright.useBrowser(job.accountId ?? '', ctx.signal)
    } catch (error) {
      if (ctx.signal?.aborted) return cancelled(ending.finish, runtimeId)
      // API-only multi-step checks don't need a browser.
      if (checkType !== 'MULTI_STEP') return ending.refuse('INTERNAL', (error as Error).message)
    }
    ending.startClock()
    // One path per slot, named by this process: a crashed process's directories are found and removed.
    workDir = join(ctx.playwright.workRoot, `svc-run-${process.pid}-${ctx.playwright.id}-${slot}`)
    await rm(workDir, { recursive: true, force: true })
    await mkdir(workDir, { recursive: true })
    workDir = await realpath(workDir)
    const browserSettings = { wsEndpoint: browser?.wsEndpoint ?? null, proxy }
    const run = await prepare(checkType, job, project, workDir, runtimeId, browserSettings, ctx)
    run.warmUp = warmUp
    // Outside the sandbox, the run's first process stops its group when this process is gone.
    if (!sandbox.sandboxed) run.env.SVC_PARENT_PID = String(process.pid)
    const timeoutMs = job.timeoutMs ?? DEFAULT_TIMEOUTS_MS[checkType]
    const exec = await execute(run, timeoutMs, ctx)
    const assembled = assemble(run, readEvents(run.eventsFile), exec, timeoutMs, ctx)
    const artifacts = await storeArtifacts(warmUp ? [] : assembled.artifacts, ctx, ending.scrubber)
    const checkResult = scrubResult(
      {
        ...assembled.result,
        screenshots: artifacts.screenshots,
        traces: artifacts.traces,
        videos: artifacts.videos,
        artifactsTruncated: artifacts.truncated,
      },
      ending.scrubber,
    )
    const verdict = ending.finish(assembled.error, checkResult, assembled.responseTime ?? exec.wallMs)
    // Stopped on request: neither a pass nor a failure, whatever the tests had reached.
    if (exec.cancelled) return { ...verdict, hasFailures: false, hasErrors: false, isCancelled: true }
    return verdict
  } finally {
    browser?.release()
    // Gone before the slot is free: the next run in the slot makes the same path its own directory.
    if (workDir) await rm(workDir, { recursive: true, force: true }).catch(() => {})
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
