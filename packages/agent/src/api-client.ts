import type {
  AgentErrorBody,
  AgentJob as AgentJobSchema,
  HeartbeatBody,
  HeartbeatReply,
  JobResultBody,
  PostedResults,
} from '@svc/core'
import type { RunnerJob } from '@svc/runner'
import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici'
import type { ProxySettings } from './config.ts'

/** One run the server leased to this agent, with its runner job typed as the runner knows it. */
export type AgentJob = Omit<AgentJobSchema, 'job'> & { job: RunnerJob }

export type AgentErrorEvent = AgentErrorBody
export type { HeartbeatBody, JobResultBody }

/** The server answered with an error status, or with something svc never sends. */
export class ApiError extends Error {
  readonly status: number
  /** What was asked, e.g. `POST /agent/v1/heartbeat`. */
  readonly request: string
  /** How the answer differs from any of svc's (`a text/html body: "<!DOCTYPE html>..."`), if it does. */
  readonly unlikeSvc: string | undefined

  constructor(
    operation: string,
    status: number,
    serverMessage: string,
    answer: { request?: string; unlikeSvc?: string } = {},
  ) {
    const detail = serverMessage || answer.unlikeSvc
    super(`${operation}: HTTP ${status}${detail ? ` (${detail})` : ''}`)
    this.status = status
    this.request = answer.request ?? operation
    this.unlikeSvc = answer.unlikeSvc
  }

  /** A missing, unknown or revoked private-location key. */
  get keyRefused(): boolean {
    return this.status === 401
  }

  /** Worth another try: the server may answer differently later. */
  get transient(): boolean {
    return this.status >= 500 || this.status === 408 || this.status === 429
  }

  /**
   * An answer svc never gives to registration or polling: not JSON (a web page, plain text), or no such
   * route (404, 405). The URL names another server; trying again can't help. An unreachable server, a
   * 5xx (a proxy in front of svc while it restarts) or a timeout may pass.
   */
  get notFromSvc(): boolean {
    if (this.transient || this.keyRefused) return false
    return this.unlikeSvc !== undefined || this.status === 404 || this.status === 405
  }
}

/** How a body that is not svc's JSON looks, briefly: its type and its start. */
function unlikeSvcBody(contentType: string, text: string): string {
  if (!text) return 'an empty body'
  const start = text.replace(/\s+/g, ' ').trim().slice(0, 80)
  return `${contentType ? `a ${contentType.split(';')[0]} body` : 'a body'}: "${start}${text.length > 80 ? '…' : ''}"`
}

const CALL_TIMEOUT_MS = 30_000

/** The dispatcher for the agent's API calls: through HTTP_PROXY / HTTPS_PROXY unless NO_PROXY says not. */
export function dispatcherOf(proxy: ProxySettings): Dispatcher {
  if (!proxy.httpProxy && !proxy.httpsProxy) return new Agent()
  return new EnvHttpProxyAgent(proxy)
}

/** `/agent/v1` as the agent calls it: bearer private-location key and its own id on every call. */
export class AgentApi {
  readonly #base: string
  readonly #headers: Record<string, string>
  readonly #dispatcher: Dispatcher

  constructor(options: { apiUrl: string; apiKey: string; agentId: string; dispatcher: Dispatcher }) {
    this.#base = options.apiUrl
    this.#headers = { authorization: `Bearer ${options.apiKey}`, 'x-svc-agent-id': options.agentId }
    this.#dispatcher = options.dispatcher
  }

  /** Long-polls for up to `max` due runs; an empty list after `waitSeconds`. */
  async pollJobs(max: number, waitSeconds: number, signal: AbortSignal): Promise<AgentJob[]> {
    const answer = await this.#call(
      'polling for jobs',
      'GET',
      `/agent/v1/jobs?max=${max}&waitSeconds=${waitSeconds}`,
      {
        signal: AbortSignal.any([signal, AbortSignal.timeout(waitSeconds * 1000 + CALL_TIMEOUT_MS)]),
        expect: Array.isArray,
      },
    )
    return answer as AgentJob[]
  }

  /** Posts one outcome, serialized (`JSON.stringify` of a JobResultBody). */
  async postResult(serialized: string): Promise<void> {
    await this.#call('posting a result', 'POST', '/agent/v1/results', { serialized })
  }

  /**
   * Posts several serialized outcomes in one request: what became of each, in order. A server from
   * before the batch route answers 404 for it (each outcome's own 404 comes inside the answer).
   */
  async postResults(serialized: string[]): Promise<PostedResults['results']> {
    const answer = await this.#call('posting results', 'POST', '/agent/v1/results/batch', {
      serialized: `{"results":[${serialized.join(',')}]}`,
    })
    return (answer as PostedResults).results
  }

  async putArtifact(checkId: string, resultId: string, path: string, bytes: Buffer): Promise<void> {
    const encoded = path.split('/').map(encodeURIComponent).join('/')
    await this.#call(
      'uploading an artifact',
      'PUT',
      `/agent/v1/checks/${checkId}/results/${resultId}/artifacts/${encoded}`,
      { bytes, timeoutMs: 300_000 },
    )
  }

  async heartbeat(body: HeartbeatBody): Promise<HeartbeatReply> {
    return (await this.#call('heartbeat', 'POST', '/agent/v1/heartbeat', {
      json: body,
      expect: (answer) => typeof (answer as { leaseSeconds?: unknown } | null)?.leaseSeconds === 'number',
    })) as HeartbeatReply
  }

  async goodbye(): Promise<void> {
    await this.#call('goodbye', 'DELETE', '/agent/v1/heartbeat', { timeoutMs: 5_000 })
  }

  async postError(event: AgentErrorEvent): Promise<void> {
    await this.#call('reporting an error event', 'POST', '/agent/v1/errors', {
      json: event,
      timeoutMs: 5_000,
    })
  }

  async #call(
    operation: string,
    method: Dispatcher.HttpMethod,
    path: string,
    options: {
      json?: unknown
      serialized?: string
      bytes?: Buffer
      signal?: AbortSignal
      timeoutMs?: number
      /** Whether a successful answer has the shape svc gives this call. */
      expect?: (answer: unknown) => boolean
    },
  ): Promise<unknown> {
    const headers: Record<string, string> = { ...this.#headers }
    let body: string | Buffer | undefined
    if (options.json !== undefined || options.serialized !== undefined) {
      headers['content-type'] = 'application/json'
      body = options.serialized ?? JSON.stringify(options.json)
    } else if (options.bytes) {
      headers['content-type'] = 'application/octet-stream'
      body = options.bytes
    }
    const response = await request(`${this.#base}${path}`, {
      method,
      headers,
      body,
      dispatcher: this.#dispatcher,
      signal: options.signal ?? AbortSignal.timeout(options.timeoutMs ?? CALL_TIMEOUT_MS),
    })
    const text = await response.body.text()
    let answer: unknown
    let isJson = false
    try {
      answer = text ? JSON.parse(text) : undefined
      isJson = text !== ''
    } catch {}
    const asked = `${method} ${path.split('?')[0]}`
    // svc answers JSON, errors included; only a 204 or a 202 is empty.
    const svcLike = isJson || (text === '' && response.statusCode < 300)
    if (response.statusCode >= 400 || !svcLike) {
      const message = isJson ? String((answer as { message?: unknown } | null)?.message ?? '') : ''
      const contentType = String(response.headers['content-type'] ?? '')
      throw new ApiError(operation, response.statusCode, message.slice(0, 500), {
        request: asked,
        unlikeSvc: svcLike ? undefined : unlikeSvcBody(contentType, text),
      })
    }
    if (options.expect && !options.expect(answer)) {
      throw new ApiError(operation, response.statusCode, '', {
        request: asked,
        unlikeSvc: `a JSON body svc does not send: "${text.slice(0, 80)}"`,
      })
    }
    return answer
  }
}
