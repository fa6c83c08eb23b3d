import type { CheckResultsTable } from '@svc/db'
import { cutText, isRecord, stringOf } from '../check-results/result-detail.ts'
import { detailOf, listOf, TEXT_SHOWN } from './result-reading.ts'
import type { Phase } from './root-cause-analyses.schemas.ts'

// A path starts where no path character precedes it: tried from inside a long run of them as well, the
// scan was quadratic (a 100 KB error took 13 s, freezing the node).
const SCRIPT_LOCATION = /(?<![\w./-])([\w./-]+\.(?:[cm]?[jt]s)):(\d+)(?::(\d+))?/
// An assertion's message names what it got within a few hundred characters (its target is shown cut at
// 200): unbounded, `.*` scanned the rest of the line from every STATUS_CODE (a 1 MB error took minutes).
const ASSERTED_STATUS = /Status code (\d{3})|STATUS_CODE.{0,300}got (\d{3})/

/** Which phase of a run fails, from the error and the sample result's detail; what in it cut to be shown. */
export function failingPhase(
  checkType: string,
  errorType: string | null,
  message: string,
  sample?: CheckResultsTable,
): { phase: Phase; detail: string | null } {
  const found = phaseOf(checkType, errorType, message, sample)
  return found.detail === null ? found : { ...found, detail: cutText(found.detail, TEXT_SHOWN) }
}

function phaseOf(
  checkType: string,
  errorType: string | null,
  message: string,
  sample?: CheckResultsTable,
): { phase: Phase; detail: string | null } {
  const detail = detailOf(sample)
  const host = /ENOTFOUND\s+(\S+)|ERR_NAME_NOT_RESOLVED at \S*?\/\/([^/\s:]+)/.exec(message)
  if (checkType === 'HEARTBEAT') return { phase: 'HEARTBEAT', detail: message || null }
  if (/DNS|ENOTFOUND|EAI_AGAIN|getaddrinfo|NXDOMAIN|SERVFAIL|ERR_NAME_NOT_RESOLVED/i.test(message)) {
    return { phase: 'DNS', detail: host?.[1] ?? host?.[2] ?? null }
  }
  const responseCode = stringOf(detail.responseCode)
  if (checkType === 'DNS' && responseCode !== undefined && responseCode !== 'NOERROR') {
    return { phase: 'DNS', detail: `response code ${responseCode}` }
  }
  if (/\bTLS\b|SSL|CERT_|certificate|self[- ]signed/i.test(message)) return { phase: 'TLS', detail: null }
  if (
    /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|Connection (refused|reset)|ERR_CONNECTION/i.test(
      message,
    )
  ) {
    return { phase: 'TCP', detail: /ECONN\w+|EHOST\w+|ENET\w+|ERR_CONNECTION_\w+/.exec(message)?.[0] ?? null }
  }
  if (/Packet loss/i.test(message)) return { phase: 'PACKET_LOSS', detail: message }
  const status = ASSERTED_STATUS.exec(message)
  if (status) return { phase: 'HTTP_STATUS', detail: status[1] ?? status[2] ?? null }
  if (errorType === 'TIMEOUT' || /timed? ?out|Timeout \d+ms/i.test(message)) {
    const script = SCRIPT_LOCATION.exec(message) ?? scriptLocationOf(detail)
    return { phase: 'TIMEOUT', detail: script ? `${script[1]}:${script[2]}` : null }
  }
  if (
    errorType === 'SCRIPT' ||
    checkType === 'BROWSER' ||
    checkType === 'MULTI_STEP' ||
    checkType === 'AUTOMATION'
  ) {
    const script = SCRIPT_LOCATION.exec(message) ?? scriptLocationOf(detail)
    return { phase: 'SCRIPT', detail: script ? `${script[1]}:${script[2]}` : null }
  }
  if (errorType === 'ASSERTION') return { phase: 'ASSERTION', detail: message }
  return { phase: 'UNKNOWN', detail: null }
}

/** The first failing step's `file:line`, or a script error's stack frame. */
function scriptLocationOf(detail: Record<string, unknown>): RegExpExecArray | null {
  const failedStep = (steps: unknown, depth: number): string | null => {
    if (depth > 20) return null
    for (const step of listOf(steps)) {
      if (!isRecord(step) || step.status !== 'failed') continue
      return failedStep(step.steps, depth + 1) ?? stringOf(step.location) ?? null
    }
    return null
  }
  const stackOf = (errors: unknown) =>
    listOf(errors)
      .map((error) => (isRecord(error) ? stringOf(error.stack) : undefined))
      .find((stack) => stack)
  for (const test of listOf(detail.tests)) {
    if (!isRecord(test) || test.failed !== true) continue
    const found = failedStep(test.steps, 0) ?? stackOf(test.errors) ?? null
    const match = found ? SCRIPT_LOCATION.exec(found) : null
    if (match) return match
  }
  for (const error of listOf(detail.errors)) {
    const stack = isRecord(error) ? stringOf(error.stack) : undefined
    const match = stack ? SCRIPT_LOCATION.exec(stack) : null
    if (match) return match
  }
  return null
}
