// Settings of the HTTP server's network edge: proxies, connection limits, static source addresses.
import { isIPv4, isIPv6 } from 'node:net'
import {
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  LONGEST_SILENT_ANSWER_MS,
} from '../http/connection-limits.ts'
import { ConfigError, parsePositiveInteger } from './values.ts'

/** SVC_HTTP_*: how long clients may take to send requests, how long a silent connection lasts, how many. */
export function parseConnectionLimits(env: NodeJS.ProcessEnv): ConnectionLimits {
  const seconds = (name: string, defaultMs: number) =>
    parsePositiveInteger(name, env[name] ?? String(defaultMs / 1000)) * 1000
  const defaults = DEFAULT_CONNECTION_LIMITS
  const limits: ConnectionLimits = {
    headersTimeoutMs: seconds('SVC_HTTP_HEADERS_TIMEOUT_SECONDS', defaults.headersTimeoutMs),
    requestTimeoutMs: seconds('SVC_HTTP_REQUEST_TIMEOUT_SECONDS', defaults.requestTimeoutMs),
    idleTimeoutMs: seconds('SVC_HTTP_IDLE_TIMEOUT_SECONDS', defaults.idleTimeoutMs),
    maxConnections: parsePositiveInteger(
      'SVC_HTTP_MAX_CONNECTIONS',
      env.SVC_HTTP_MAX_CONNECTIONS ?? String(defaults.maxConnections),
    ),
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      'SVC_HTTP_HEADERS_TIMEOUT_SECONDS must not be more than SVC_HTTP_REQUEST_TIMEOUT_SECONDS (headers are part of the request)',
    )
  }
  if (limits.idleTimeoutMs <= LONGEST_SILENT_ANSWER_MS) {
    throw new ConfigError(
      `SVC_HTTP_IDLE_TIMEOUT_SECONDS must be more than ${LONGEST_SILENT_ANSWER_MS / 1000}: agents' long-polls wait that long in silence`,
    )
  }
  return limits
}

/** proxy-addr's names for ranges, as Fastify's trustProxy takes them. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * SVC_TRUST_PROXY: unset or `false` trusts no proxy; `true` trusts every hop (only when every request
 * passes a proxy that sets X-Forwarded-For); else the proxies' addresses, CIDR ranges or proxy-addr's
 * names (loopback, linklocal, uniquelocal), comma-separated. (Fastify 5 refuses hop counts.)
 */
export function parseTrustProxy(value: string | undefined): boolean | string[] {
  const trimmed = (value ?? '').trim().toLowerCase()
  if (trimmed === '' || trimmed === 'false') return false
  if (trimmed === 'true') return true
  const list = trimmed
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  const invalid = list.find((entry) => !PROXY_RANGE_NAMES.has(entry) && !isAddressRange(entry))
  if (invalid !== undefined) {
    throw new ConfigError(
      `SVC_TRUST_PROXY must be true, false or comma-separated proxy addresses (CIDR, loopback, linklocal, uniquelocal allowed), got ${invalid}`,
    )
  }
  return list
}

function isAddressRange(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/')
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0
  if (family === 0 || rest.length > 0) return false
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
}

export function parseAddresses(name: string, value: string | undefined, valid: (address: string) => boolean) {
  const list = (value ?? '')
    .split(',')
    .map((address) => address.trim())
    .filter(Boolean)
  const invalid = list.find((address) => !valid(address))
  if (invalid) throw new ConfigError(`${name}: ${invalid} is not a valid address`)
  return list
}
