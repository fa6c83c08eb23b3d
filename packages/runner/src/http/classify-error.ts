import type { RunError } from '../types.ts'

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME'])
const TLS_CODE = /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_SSL/

/** Whether the run failed resolving its target's name, so nothing was probed. */
export function isLookupFailure(error: unknown): boolean {
  const cause = (error as { cause?: unknown })?.cause ?? error
  return DNS_CODES.has(
    String((cause as { code?: unknown })?.code ?? (error as { code?: unknown })?.code ?? ''),
  )
}

/** Names what went wrong on the network the way a person debugging it would look for it. */
export function classifyNetworkError(error: unknown, timedOut: boolean): RunError {
  if (timedOut) return { type: 'TIMEOUT', message: 'The request timed out' }
  const cause = (error as { cause?: unknown })?.cause ?? error
  const code = String((cause as { code?: unknown })?.code ?? (error as { code?: unknown })?.code ?? '')
  const message = (cause as Error)?.message ?? String(error)
  if (DNS_CODES.has(code)) return { type: 'NETWORK_ERROR', message: `DNS lookup failed: ${message}` }
  if (code === 'ECONNREFUSED') return { type: 'NETWORK_ERROR', message: `Connection refused: ${message}` }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
    return { type: 'NETWORK_ERROR', message: `Connection reset: ${message}` }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { type: 'TIMEOUT', message: 'Connecting timed out' }
  if (code === 'ERR_INVALID_URL') {
    const input = (cause as { input?: unknown })?.input
    return { type: 'NETWORK_ERROR', message: `Invalid URL: ${String(input ?? message)}` }
  }
  if (TLS_CODE.test(code)) return { type: 'NETWORK_ERROR', message: `TLS error (${code}): ${message}` }
  return { type: 'NETWORK_ERROR', message: code ? `${code}: ${message}` : message }
}
