import type { CheckType } from '@svc/core'
import {
  type DnsJob,
  type HttpJob,
  type IcmpJob,
  type RunnerContext,
  type RunVerdict,
  runDnsCheck,
  runHttpCheck,
  runIcmpCheck,
  runTcpCheck,
  type TcpJob,
} from '@svc/runner'

/** Check types that run on a schedule (heartbeats are judged from their pings instead). */
export const RUNNABLE_CHECK_TYPES: readonly CheckType[] = [
  'API',
  'URL',
  'TCP',
  'DNS',
  'ICMP',
  'BROWSER',
  'MULTI_STEP',
  'AUTOMATION',
]

/** The key of each type's detail in a stored result (API.md "Check results"). */
const DETAIL_KEYS: Partial<Record<CheckType, string>> = {
  API: 'apiCheckResult',
  URL: 'urlCheckResult',
  TCP: 'tcpCheckResult',
  DNS: 'dnsCheckResult',
  ICMP: 'icmpCheckResult',
}

export interface RunOutcome {
  verdict: RunVerdict
  detailKey: string
  detail: unknown
  statusCode: number | null
}

/** Runs one attempt of a stored uptime check definition (URL, API, TCP, DNS, ICMP) with its runner. */
export async function runCheckDefinition(
  checkType: CheckType,
  definition: Record<string, unknown>,
  ctx: RunnerContext,
): Promise<RunOutcome> {
  const detailKey = DETAIL_KEYS[checkType]
  if (!detailKey) throw new Error(`no runner for ${checkType} checks`)
  const shouldFail = Boolean(definition.shouldFail)
  switch (checkType) {
    case 'API':
    case 'URL': {
      const { checkResult, ...verdict } = await runHttpCheck(
        { ...(definition as unknown as HttpJob), checkType, shouldFail },
        ctx,
      )
      return { verdict, detailKey, detail: checkResult, statusCode: checkResult.response?.status ?? null }
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
    default:
      throw new Error(`no runner for ${checkType} checks`)
  }
}
