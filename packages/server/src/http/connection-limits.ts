import type { ServerOptions } from 'node:http'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'

/** How long a client may take and how many connections the server holds (SVC_HTTP_*). */
export interface ConnectionLimits {
  /** A request's headers must all arrive within this, from its first byte (or the connection's). */
  headersTimeoutMs: number
  /** A request, headers and body, must all arrive within this. The answer may take longer (long-polls). */
  requestTimeoutMs: number
  /** A connection over which nothing moves either way for this long is closed. */
  idleTimeoutMs: number
  /** Connections held at once; more are closed as they open. */
  maxConnections: number
}

/**
 * The agents' long-poll waits up to 30 s without a byte either way: the idle timeout must outlast it.
 * Node's keep-alive timeout (an idle connection between requests) stays Fastify's 72 s, within it.
 */
export const LONGEST_SILENT_ANSWER_MS = 30_000

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 120_000,
  idleTimeoutMs: 120_000,
  maxConnections: 10_000,
}

/** Node checks its headers and request timeouts at this interval (30 s by default: a 20 s limit held for 50). */
const MAX_CHECKING_INTERVAL_MS = 1_000

/** The Fastify options that set `limits` on the HTTP server it makes. */
export function connectionOptionsOf(
  limits: ConnectionLimits,
): FastifyServerOptions & { http: ServerOptions } {
  const { headersTimeoutMs, requestTimeoutMs, idleTimeoutMs } = limits
  return {
    requestTimeout: requestTimeoutMs,
    connectionTimeout: idleTimeoutMs,
    http: {
      headersTimeout: headersTimeoutMs,
      connectionsCheckingInterval: Math.min(MAX_CHECKING_INTERVAL_MS, headersTimeoutMs, requestTimeoutMs),
    },
  }
}

/** Sets what only the made server takes: the connection cap. */
export function capConnections(app: FastifyInstance, limits: ConnectionLimits): void {
  app.server.maxConnections = limits.maxConnections
}
