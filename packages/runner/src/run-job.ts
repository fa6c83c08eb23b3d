import {
  type DnsDetail,
  type HttpDetail,
  type IcmpDetail,
  type SCRIPT_CHECK_TYPES,
  type ScriptDetail,
  Scrubber,
  scrubHeaders,
  type TcpDetail,
} from '@svc/core'
import { type DnsCheckResult, type DnsJob, runDnsCheck } from './dns/run-dns-check.ts'
import { type CertificateReading, readCertificate } from './http/read-certificate.ts'
import { type HttpJob, runHttpCheck } from './http/run-http-check.ts'
import { type IcmpCheckResult, type IcmpJob, runIcmpCheck } from './icmp/run-icmp-check.ts'
import {
  cancelledBeforeStart,
  runAutomationCheck,
  runBrowserCheck,
  runMultiStepCheck,
} from './playwright/index.ts'
import type { PlaywrightPool } from './playwright/pool.ts'
import type { ScriptCheckResult, ScriptJob } from './playwright/types.ts'
import { runTcpCheck, type TcpCheckResult, type TcpJob } from './tcp/run-tcp-check.ts'
import type { HttpCheckResult, RunnerContext, RunVerdict } from './types.ts'

export const UPTIME_CHECK_TYPES = ['API', 'URL', 'TCP', 'DNS', 'ICMP'] as const

/**
 * One attempt, as a server or an agent receives it: an uptime check's definition with variables already
 * substituted, or a script check's job.
 */
export type RunnerJob =
  | { checkType: (typeof UPTIME_CHECK_TYPES)[number]; definition: Record<string, unknown> }
  | { checkType: (typeof SCRIPT_CHECK_TYPES)[number]; script: ScriptJob; sslCheckDomain?: string | null }

const NO_SECRETS = new Scrubber([])

/** The key of each type's detail in a stored result (API.md "Check results"). */
export const DETAIL_KEYS = {
  API: 'apiCheckResult',
  URL: 'urlCheckResult',
  TCP: 'tcpCheckResult',
  DNS: 'dnsCheckResult',
  ICMP: 'icmpCheckResult',
  BROWSER: 'browserCheckResult',
  MULTI_STEP: 'multiStepCheckResult',
  AUTOMATION: 'playwrightCheckResult',
} as const

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
  if ('script' in job) {
    if (!ctx.playwright || !ctx.artifactsDir) throw new Error('script checks need a Playwright pool')
    const run = { BROWSER: runBrowserCheck, MULTI_STEP: runMultiStepCheck, AUTOMATION: runAutomationCheck }[
      job.checkType
    ]
    const [{ checkResult, ...verdict }, tls]: [Awaited<ReturnType<typeof run>>, CertificateReading | null] =
      await Promise.all([
        run(job.script, { ...ctx, playwright: ctx.playwright, artifactsDir: ctx.artifactsDir }),
        job.sslCheckDomain ? readCertificate(job.sslCheckDomain, ctx) : null,
      ])
    // `tls`: the certificate of `sslCheckDomain`, read beside the run, for ALERT_SSL.
    return { verdict, detailKey, detail: tls ? { ...checkResult, tls } : checkResult, statusCode: null }
  }
  const definition = job.definition
  switch (job.checkType) {
    case 'API':
    case 'URL': {
      const shouldFail = Boolean(definition.shouldFail)
      const { checkResult, ...verdict } = await runHttpCheck(
        { ...(definition as unknown as HttpJob), checkType: job.checkType, shouldFail },
        ctx,
      )
      // Authorization, proxy-authorization and cookie headers never reach a stored result.
      const detail = {
        ...checkResult,
        request: { ...checkResult.request, headers: scrubHeaders(checkResult.request.headers, NO_SECRETS) },
        response: checkResult.response && {
          ...checkResult.response,
          headers: scrubHeaders(checkResult.response.headers, NO_SECRETS),
        },
      }
      return { verdict, detailKey, detail, statusCode: checkResult.response?.status ?? null }
    }
    case 'TCP': {
      const { checkResult, ...verdict } = await runTcpCheck(definition as unknown as TcpJob, ctx)
      return { verdict, detailKey, detail: checkResult, statusCode: null }
    }
    case 'DNS': {
      const { checkResult, ...verdict } = await runDnsCheck(definition as unknown as DnsJob, ctx)
      return { verdict, detailKey, detail: checkResult, statusCode: null }
    }
    case 'ICMP': {
      const { checkResult, ...verdict } = await runIcmpCheck(definition as unknown as IcmpJob, ctx)
      return { verdict, detailKey, detail: checkResult, statusCode: null }
    }
  }
}
