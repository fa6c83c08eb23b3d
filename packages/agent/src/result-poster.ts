import { readFile } from 'node:fs/promises'
import { resolve, sep } from 'node:path'
import { MAX_RESULTS_PER_POST } from '@svc/core'
import type { RunOutcome } from '@svc/runner'
import { type AgentApi, type AgentJob, ApiError, type JobResultBody } from './api-client.ts'
import { backoff, sleep } from './backoff.ts'
import { type Logger, messageOf } from './logging.ts'

/** How long a result (or artifact) is retried before the agent gives up on it. */
const RESULT_RETRY_MS = 120_000

export interface ResultPosterDeps {
  api: AgentApi
  log: Logger
  scrub(text: string): string
  reportError(error: unknown): Promise<void>
  /** The server refused the key (401) while posting. */
  keyRefused(error: ApiError): void
  /** Retries end by this time (the shutdown grace's end; infinite while running). */
  graceDeadline(): number
}

/**
 * Posts the agent's run outcomes to the server: batched while a post is in flight, retried through
 * network failures and 5xx answers, one by one where a batch can't be taken.
 */
export class ResultPoster {
  readonly #deps: ResultPosterDeps
  /** Outcomes waiting for the post in flight to end: they go together in the next one. */
  readonly #outbox: OutboxItem[] = []
  #posting = false
  /** Until a server from before `POST /agent/v1/results/batch` answers it with 404. */
  #serverTakesBatches = true

  constructor(deps: ResultPosterDeps) {
    this.#deps = deps
  }

  /** Uploads a script run's screenshots, traces and videos, each with its own retries. */
  async uploadArtifacts(job: AgentJob, outcome: RunOutcome, artifactsDir: string): Promise<void> {
    const detail = (outcome.detail ?? {}) as Partial<
      Record<'screenshots' | 'traces' | 'videos', { path: string }[]>
    >
    const paths = [...(detail.screenshots ?? []), ...(detail.traces ?? []), ...(detail.videos ?? [])].map(
      (file) => file.path,
    )
    for (const path of paths) {
      const file = resolve(artifactsDir, path)
      if (!file.startsWith(`${artifactsDir}${sep}`)) continue
      const bytes = await readFile(file).catch(() => null)
      if (!bytes) continue
      await this.withRetries(`uploading artifact ${path}`, () =>
        this.#deps.api.putArtifact(job.checkId, job.resultId, path, bytes),
      )
    }
  }

  /**
   * Hands an outcome to the next post and waits until it is posted (or given up). Outcomes that end
   * while a post is in flight go together in the next one: the server then looks up checks and
   * variables once for them and stores them in shared commits.
   */
  post(body: JobResultBody): Promise<void> {
    const posted = Promise.withResolvers<void>()
    this.#outbox.push({ body, serialized: JSON.stringify(body), posted: posted.resolve })
    if (!this.#posting) void this.#postOutbox()
    return posted.promise
  }

  async #postOutbox(): Promise<void> {
    this.#posting = true
    while (this.#outbox.length > 0) {
      const batch = takeBatch(this.#outbox)
      try {
        await this.#sendResults(
          batch.map((item) => item.body),
          batch.map((item) => item.serialized),
        )
      } catch (error) {
        this.#deps.log.error(this.#deps.scrub(`posting results failed: ${messageOf(error)}`))
      } finally {
        for (const item of batch) item.posted()
      }
    }
    this.#posting = false
  }

  /**
   * Posts outcomes, several in one request where the server takes batches. A server from before the
   * batch route (404) gets each on its own from then on. A batch refused whole (400, 413) or failing
   * on the server (5xx) goes one by one, each with its own retries, so that one outcome the server
   * can't take does not cost the others theirs.
   */
  async #sendResults(bodies: JobResultBody[], serialized: string[]): Promise<void> {
    const { api, log } = this.#deps
    if (bodies.length > 1 && this.#serverTakesBatches) {
      const answers = await this.withRetries(`posting ${bodies.length} results`, async () => {
        try {
          return await api.postResults(serialized)
        } catch (error) {
          if (!(error instanceof ApiError && [400, 404, 413, 500, 502, 503, 504].includes(error.status)))
            throw error
          if (error.status === 404) this.#serverTakesBatches = false
          return 'one by one' as const
        }
      })
      if (answers !== 'one by one') {
        const refused: string[] = []
        answers?.forEach((answer, i) => {
          if (answer.statusCode < 400) return
          const why = `HTTP ${answer.statusCode} (${answer.message ?? ''})`
          const what = `posting the result of ${bodies[i]?.slotKey}: ${why}`
          // 404: the check was deleted, or the run taken off this location, while it ran: nothing to
          // store, nothing wrong with the agent, and posting it again can't help.
          if (answer.statusCode === 404) log.warn(this.#deps.scrub(what))
          else {
            log.error(this.#deps.scrub(what))
            refused.push(why)
          }
        })
        // Refused for good (400: an outcome this server can't take; 409), as a lone post's would be: dropped,
        // and reported once per post.
        if (refused.length > 0) {
          await this.#deps.reportError(
            new Error(`posting results: ${refused.length} of ${bodies.length} refused: ${refused[0]}`),
          )
        }
        return
      }
    }
    await Promise.all(
      bodies.map((body, i) =>
        this.withRetries(`posting the result of ${body.slotKey}`, () =>
          api.postResult(serialized[i] as string),
        ),
      ),
    )
  }

  /**
   * Retries network failures and 5xx answers with backoff for up to two minutes (less once the
   * shutdown grace ends); the server stores a result posted twice once. Gives up with an error event.
   */
  async withRetries<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
    const { log } = this.#deps
    const giveUpAt = Date.now() + RESULT_RETRY_MS
    for (let attempt = 1; ; attempt++) {
      try {
        return await call()
      } catch (error) {
        if (error instanceof ApiError && error.keyRefused) {
          this.#deps.keyRefused(error)
          return undefined
        }
        if (error instanceof ApiError && error.status === 404) {
          // The check was deleted, or the run taken off this location, while it ran: not retried.
          log.warn(this.#deps.scrub(`${what}: ${messageOf(error)}`))
          return undefined
        }
        const delay = backoff(attempt, 250, 10_000)
        const retry = !(error instanceof ApiError) || error.transient
        if (!retry || Date.now() + delay > Math.min(giveUpAt, this.#deps.graceDeadline())) {
          log.error(this.#deps.scrub(`${what} failed after ${attempt} attempt(s): ${messageOf(error)}`))
          await this.#deps.reportError(
            new Error(
              `${what.replace(/ of .*$/, '')} failed after ${attempt} attempt(s): ${messageOf(error)}`,
            ),
          )
          return undefined
        }
        log.warn(this.#deps.scrub(`${what} failed (attempt ${attempt}, retrying): ${messageOf(error)}`))
        await sleep(delay)
      }
    }
  }
}

interface OutboxItem {
  body: JobResultBody
  serialized: string
  posted: () => void
}

/** The most characters of serialized outcomes one post carries (the server takes 32 MB per post). */
const MAX_CHARACTERS_PER_POST = 8 * 1024 * 1024

/** Takes the oldest outcomes that fit one post off `outbox` (at least one, however large). */
function takeBatch(outbox: OutboxItem[]): OutboxItem[] {
  let count = 0
  let characters = 0
  while (count < outbox.length && count < MAX_RESULTS_PER_POST) {
    characters += (outbox[count] as OutboxItem).serialized.length
    if (count > 0 && characters > MAX_CHARACTERS_PER_POST) break
    count++
  }
  return outbox.splice(0, count)
}
