import {
  type ApiScripts,
  type CheckJob,
  DEFINITION_CHECK_TYPES,
  DETAIL_KEYS,
  type DefinitionCheckType,
  type DnsDetail,
  type HttpDetail,
  type IcmpDetail,
  type ScriptCheckType,
  type ScriptDetail,
  Scrubber,
  type SslDetail,
  scrubHeaders,
  type TcpDetail,
} from '@svc/core'
import { type DnsCheckResult, runDnsCheck } from './dns/run-dns-check.ts'
import { type CertificateReading, readCertificate } from './http/read-certificate.ts'
import { runHttpCheck } from './http/run-http-check.ts'
import { hasApiScripts, runScriptedHttpCheck } from './http/scripted-http-check.ts'
import { type IcmpCheckResult, runIcmpCheck } from './icmp/run-icmp-check.ts'
import {
  cancelledBeforeStart,
  runAutomationCheck,
  runBrowserCheck,
  runMultiStepCheck,
} from './playwright/index.ts'
import type { PlaywrightPool } from './playwright/pool.ts'
import type {
  ScriptCheckResult,
  ScriptJob,
  ScriptRunnerContext,
  ScriptRunResult,
} from './playwright/types.ts'
import { runSslCheck, type SslCheckResult } from './ssl/run-ssl-check.ts'
import { runTcpCheck, type TcpCheckResult } from './tcp/run-tcp-check.ts'
import type { HttpCheckResult, RunnerContext, RunVerdict } from './types.ts'

export { DETAIL_KEYS }

/** The types whose runner reads the check's stored definition (`@svc/core` check-types/). */
export const UPTIME_CHECK_TYPES = DEFINITION_CHECK_TYPES

/**
 * One attempt, as a server or an agent receives it: an uptime check's definition with variables already
 * substituted, or a script check's job.
 */
export type RunnerJob =
  | { checkType: DefinitionCheckType; definition: Record<string, unknown> }
  | { checkType: ScriptCheckType; script: ScriptJob; sslCheckDomain?: string | null }

const NO_SECRETS = new Scrubber([])

/** `Detail`, a runner's result type, where it must be `Posted`: tsc fails when the two drift apart. */
type Agreeing<Posted, Detail extends Posted> = Detail

/**
 * Each type's detail as its runner reports it, which is what an agent posts of it: the server takes an agent's
 * detail only as `AGENT_DETAILS` (@svc/core) describes it, so each result type must fit that schema.
 */
export interface RunDetails {
  URL: Agreeing<HttpDetail, HttpCheckResult>
  API: Agreeing<HttpDetail, HttpCheckResult>
  TCP: Agreeing<TcpDetail, TcpCheckResult>
  DNS: Agreeing<DnsDetail, DnsCheckResult>
  ICMP: Agreeing<IcmpDetail, IcmpCheckResult>
  SSL: Agreeing<SslDetail, SslCheckResult>
  BROWSER: Agreeing<ScriptDetail, ScriptCheckResult & { tls?: CertificateReading }>
  MULTI_STEP: Agreeing<ScriptDetail, ScriptCheckResult & { tls?: CertificateReading }>
  AUTOMATION: Agreeing<ScriptDetail, ScriptCheckResult & { tls?: CertificateReading }>
}

/** What an attempt produced: the shared verdict and the type's detail under its key. */
export interface RunOutcome {
  verdict: RunVerdict
  detailKey: string
  detail: unknown
  statusCode: number | null
}

export interface JobRunnerContext extends RunnerContext {
  /** Needed for script checks. */
  playwright?: PlaywrightPool
  /** Where a script run files its screenshots and traces. */
  artifactsDir?: string
  /** Aborting stops a script run; it ends cancelled, with what it produced so far. */
  signal?: AbortSignal
}

/** A run of one type: its verdict, and its detail as the type reports it. */
interface TypedRun<T extends keyof RunDetails> {
  verdict: RunVerdict
  detail: RunDetails[T]
  statusCode: number | null
}

/** Splits a runner's result into the verdict and the detail. */
function typed<T extends keyof RunDetails>(
  { checkResult, ...verdict }: RunVerdict & { checkResult: RunDetails[T] },
  statusCode: number | null = null,
): TypedRun<T> {
  return { verdict, detail: checkResult, statusCode }
}

/**
 * The runner of each type that reads its definition, typed by the type's job (`CheckJob`, from its module in
 * `@svc/core`): a type in core without a runner here, or a runner reading what its job lacks, fails tsc.
 */
const DEFINITION_RUNNERS: {
  [T in DefinitionCheckType]: (job: CheckJob<T>, ctx: JobRunnerContext) => Promise<TypedRun<T>>
} = {
  API: (job, ctx) => runHttp('API', job, ctx),
  URL: (job, ctx) => runHttp('URL', job, ctx),
  TCP: async (job, ctx) => typed(await runTcpCheck(job, ctx)),
  DNS: async (job, ctx) => typed(await runDnsCheck(job, ctx)),
  ICMP: async (job, ctx) => typed(await runIcmpCheck(job, ctx)),
  SSL: async (job, ctx) => typed(await runSslCheck(job, ctx)),
}

const SCRIPT_RUNNERS: {
  [T in ScriptCheckType]: (job: ScriptJob, ctx: ScriptRunnerContext) => Promise<ScriptRunResult>
} = { BROWSER: runBrowserCheck, MULTI_STEP: runMultiStepCheck, AUTOMATION: runAutomationCheck }

async function runHttp(
  checkType: 'API' | 'URL',
  job: CheckJob<'API'> | CheckJob<'URL'>,
  ctx: JobRunnerContext,
): Promise<{ verdict: RunVerdict; detail: HttpCheckResult; statusCode: number | null }> {
  const httpJob = { ...job, checkType, shouldFail: Boolean(job.shouldFail) }
  // Set by the server on an API check that has setup or teardown scripts (its own or its group's).
  const scripts = checkType === 'API' ? (job as { scripts?: ApiScripts | null }).scripts : null
  const { checkResult, ...verdict } = hasApiScripts(scripts)
    ? await runScriptedHttpCheck(httpJob, scripts, ctx)
    : await runHttpCheck(httpJob, ctx)
  // Authorization, proxy-authorization and cookie headers never reach a stored result.
  const detail = {
    ...checkResult,
    request: { ...checkResult.request, headers: scrubHeaders(checkResult.request.headers, NO_SECRETS) ?? {} },
    response: checkResult.response && {
      ...checkResult.response,
      headers: scrubHeaders(checkResult.response.headers, NO_SECRETS) ?? {},
    },
  }
  return { verdict, detail, statusCode: checkResult.response?.status ?? null }
}

function runDefinition<T extends DefinitionCheckType>(
  checkType: T,
  definition: Record<string, unknown>,
  ctx: JobRunnerContext,
): Promise<TypedRun<T>> {
  const run: (job: CheckJob<T>, ctx: JobRunnerContext) => Promise<TypedRun<T>> = DEFINITION_RUNNERS[checkType]
  // The one place a definition becomes its type's job: the server validated it against the type's body, with
  // defaults applied, when it was saved (an agent receives it as the server stored it).
  return run(definition as CheckJob<T>, ctx)
}

/** The outcome of a script run cancelled before it started anywhere: no test ran. */
export function cancelledOutcome(
  job: Extract<RunnerJob, { script: ScriptJob }>,
  ctx: RunnerContext,
): RunOutcome {
  const { checkResult, ...verdict } = cancelledBeforeStart(job.script, ctx)
  return { verdict, detailKey: DETAIL_KEYS[job.checkType], detail: checkResult, statusCode: null }
}

/** Runs one attempt with the runner of its type. A failing target is an outcome, never a throw. */
export async function runJob(job: RunnerJob, ctx: JobRunnerContext): Promise<RunOutcome> {
  const detailKey = DETAIL_KEYS[job.checkType]
  if ('definition' in job) return { detailKey, ...(await runDefinition(job.checkType, job.definition, ctx)) }
  if (!ctx.playwright || !ctx.artifactsDir) throw new Error('script checks need a Playwright pool')
  const run = SCRIPT_RUNNERS[job.checkType]
  const [{ checkResult, ...verdict }, tls] = await Promise.all([
    run(job.script, { ...ctx, playwright: ctx.playwright, artifactsDir: ctx.artifactsDir }),
    job.sslCheckDomain ? readCertificate(job.sslCheckDomain, ctx) : null,
  ])
  // `tls`: the certificate of `sslCheckDomain`, read beside the run, for ALERT_SSL.
  return { verdict, detailKey, detail: tls ? { ...checkResult, tls } : checkResult, statusCode: null }
}
