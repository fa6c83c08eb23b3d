import type {
  AgentErrorBody,
  AgentJob as AgentJobSchema,
  HeartbeatBody,
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

/** The server answered with an error status. */
export class ApiError extends Error {
  readonly status: number

  constructor(operation: string, status: number, serverMessage: string) {
    super(`${operation}: HTTP ${status}${serverMessage ? ` (${serverMessage})` : ''}`)
    this.status = status
  }

  /** A missing, unknown or revoked private-location key. */
  get keyRefused(): boolean {
    return this.status === 401
  }

  /** Worth another try: the server may answer differently later. */
  get transient(): boolean {
    return this.status >= 500 || this.status === 408 || this.status === 429
  }
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

  async heartbeat(body: HeartbeatBody): Promise<{ leaseSeconds: number }> {
    return (await this.#call('heartbeat', 'POST', '/agent/v1/heartbeat', { json: body })) as {
      leaseSeconds: number
    }
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
    if (response.statusCode >= 400) {
      let message = ''
      try {
        message = String((JSON.parse(text) as { message?: unknown }).message ?? '')
      } catch {}
      throw new ApiError(operation, response.statusCode, message.slice(0, 500))
    }
    return text ? JSON.parse(text) : undefined
  }
}
