import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jobResultBody, Scrubber } from '@svc/core'
import {
  DETAIL_KEYS,
  type JobRunnerContext,
  PlaywrightPool,
  type RunnerJob,
  type RunOutcome,
  runJob,
  type ScriptSandboxStatus,
} from '@svc/runner'
import type { AgentApi, AgentJob } from './api-client.ts'
import { ApiError } from './api-client.ts'
import { backoff, sleep } from './backoff.ts'
import type { AgentConfig } from './config.ts'
import { errorEventOf } from './error-events.ts'
import type { Readiness } from './health.ts'
import { type Logger, messageOf } from './logging.ts'
import { internalOutcome, onAgentRuntime, outcomeToSend } from './outcome.ts'
import { ResultPoster } from './result-poster.ts'

export type { Logger } from './logging.ts'

export interface AgentOptions {
  config: AgentConfig
  api: AgentApi
  version: string
  hostname: string
  log: Logger
  /** The server refused the key (401): it is wrong or was revoked. */
  onKeyRefused(error: ApiError): void
  /** The first registration or poll got an answer svc never gives: SVC_API_URL names another server. */
  onNotSvc(error: ApiError): void
  /** Extra runner context (tests and benches inject a resolver or a proxy). */
  runner?: Partial<JobRunnerContext>
  /** Tests only: called as a run ends and frees its place, before its outcome is posted. */
  onRunEnded?: (jobId: string) => void
}

const MAX_HEARTBEAT_INTERVAL_MS = 10_000
const POLL_WAIT_SECONDS = 25
const MAX_JOBS_PER_POLL = 100
/** A failure streak this long becomes an error event (once per streak). */
const REPORTED_STREAK = 3

/**
 * The agent of a private location: registers with a heartbeat, long-polls `/agent/v1/jobs` while fewer
 * than `jobConcurrency` runs are in flight, runs each job with the runner, uploads script artifacts,
 * posts the scrubbed outcome (retrying network failures), and keeps its leases alive with heartbeats.
 */
export class SvcAgent {
  readonly #options: AgentOptions
  readonly #config: AgentConfig
  readonly #scrubber: Scrubber
  #state: 'created' | 'running' | 'stopping' | 'stopped' = 'created'
  #registered = false
  /** Whether svc ever answered: until then an answer svc never gives stops the agent. */
  #svcAnswered = { heartbeat: false, poll: false }
  #pollingOk = false
  #leaseMs = 30_000
  /** Every job from its claim until its result is posted (or given up): what shutdown waits for. */
  readonly #running = new Map<string, Promise<void>>()
  /** Stops each script run in flight when the server says it was cancelled (by job id). */
  readonly #cancels = new Map<string, AbortController>()
  /** Jobs whose run is still going: at most `jobConcurrency`. A job posting its result holds no place. */
  #runs = 0
  #placeFreed = Promise.withResolvers<void>()
  readonly #results: ResultPoster
  #pollAbort: AbortController | null = null
  #heartbeatTimer: NodeJS.Timeout | null = null
  #loop: Promise<void> = Promise.resolve()
  #pool: PlaywrightPool | null = null
  readonly #abandon = new AbortController()
  #graceDeadline = Number.POSITIVE_INFINITY
  #wakeStop: () => void = () => {}
  readonly #stopRequested = new Promise<void>((wake) => {
    this.#wakeStop = wake
  })
  #wakeRegistered: () => void = () => {}
  readonly #registeredOnce = new Promise<void>((wake) => {
    this.#wakeRegistered = wake
  })
  #shutdown: Promise<void> | null = null
  #heartbeatFailures = 0

  constructor(options: AgentOptions) {
    this.#options = options
    this.#config = options.config
    this.#scrubber = new Scrubber([...options.config.secrets, options.config.apiKey])
    this.#results = new ResultPoster({
      api: options.api,
      log: options.log,
      scrub: (text) => this.scrub(text),
      reportError: (error) => this.reportError(error),
      keyRefused: (error) => this.#keyRefused(error),
      graceDeadline: () => this.#graceDeadline,
    })
  }

  /** What `/-/readiness` says. */
  readiness(): Readiness {
    if (this.#state === 'stopping' || this.#state === 'stopped') return 'shutting down'
    if (!this.#registered) return 'starting'
    return this.#pollingOk ? 'ready' : 'not polling'
  }

  get runningJobs(): number {
    return this.#running.size
  }

  /** Scrubs the agent's own secrets (its key, SVC_SECRET_* values) from text, e.g. a log line. */
  scrub(text: string): string {
    return this.#scrubber.text(text)
  }

  /** `--refresh-cache`: drops the caches of script runs (each account's compiled code). */
  async refreshCache(): Promise<string> {
    const dir = this.#playwright().cacheDir
    await rm(dir, { recursive: true, force: true })
    return dir
  }

  /** Removes run directories of crashed agents and finds out whether scripts run in the sandbox. */
  scriptSandbox(): Promise<ScriptSandboxStatus> {
    return this.#playwright().start()
  }

  start(): void {
    if (this.#state !== 'created') return
    this.#state = 'running'
    void this.#heartbeat()
    this.#loop = this.#pollLoop()
  }

  /**
   * Stops taking jobs, lets running ones finish and post their results within the grace, then says
   * goodbye. Jobs still running after the grace are left: their leases run out and another agent of
   * the location runs them.
   */
  shutdown(): Promise<void> {
    this.#shutdown ??= this.#stop()
    return this.#shutdown
  }

  /** Reports an error-level event (unless EXTERNAL_OBSERVABILITY=off); never throws. */
  async reportError(error: unknown, scrubber: Scrubber = this.#scrubber): Promise<void> {
    if (!this.#config.externalObservability) return
    try {
      await this.#options.api.postError(errorEventOf(error, scrubber, { version: this.#options.version }))
    } catch (failure) {
      this.#options.log.warn(this.scrub(`could not report an error event: ${messageOf(failure)}`))
    }
  }

  async #stop(): Promise<void> {
    const { log } = this.#options
    if (this.#state === 'created') this.#state = 'running'
    this.#state = 'stopping'
    this.#wakeStop()
    this.#pollAbort?.abort()
    this.#graceDeadline = Date.now() + this.#config.shutdownGraceMs
    // The loop ends at once (its poll is aborted); a poll answered just before still starts its jobs.
    await this.#loop
    log.info(
      `shutting down: no new jobs; waiting up to ${this.#config.shutdownGraceMs / 1000} s for ` +
        `${this.#running.size} running job(s)`,
    )
    let graceTimer: NodeJS.Timeout | undefined
    const finished = await Promise.race([
      Promise.all(this.#running.values()).then(() => true),
      new Promise<false>((done) => {
        graceTimer = setTimeout(() => done(false), Math.max(0, this.#graceDeadline - Date.now()))
      }),
    ])
    clearTimeout(graceTimer)
    if (!finished) {
      log.warn(
        `${this.#running.size} job(s) did not finish within the grace; they are left to the ` +
          'location’s other agents once their leases run out',
      )
      this.#abandon.abort()
    }
    if (this.#heartbeatTimer) clearTimeout(this.#heartbeatTimer)
    this.#heartbeatTimer = null
    if (this.#registered) {
      try {
        await this.#options.api.goodbye()
      } catch (error) {
        log.warn(this.scrub(`goodbye failed: ${messageOf(error)}`))
      }
    }
    await this.#pool?.close().catch(() => {})
    this.#state = 'stopped'
    log.info('stopped')
  }

  get #stopped(): boolean {
    return this.#state === 'stopped'
  }

  get #stopping(): boolean {
    return this.#state !== 'running'
  }

  async #heartbeat(): Promise<void> {
    if (this.#state === 'stopped' || (this.#stopping && this.#running.size === 0)) return
    const { api, log, version, hostname } = this.#options
    try {
      const { leaseSeconds, cancelJobIds = [] } = await api.heartbeat({
        version,
        hostname,
        runningJobs: this.#running.size,
      })
      this.#leaseMs = leaseSeconds * 1000
      for (const jobId of cancelJobIds) this.#cancels.get(jobId)?.abort()
      if (!this.#registered) log.info(`registered with ${this.#config.apiUrl}`)
      this.#registered = true
      this.#svcAnswered.heartbeat = true
      this.#heartbeatFailures = 0
      this.#wakeRegistered()
    } catch (error) {
      if (error instanceof ApiError && error.keyRefused) return this.#keyRefused(error)
      if (!this.#svcAnswered.heartbeat && error instanceof ApiError && error.notFromSvc)
        return this.#notSvc(error)
      this.#heartbeatFailures++
      log.warn(this.scrub(`heartbeat failed: ${messageOf(error)}`))
      if (this.#heartbeatFailures === REPORTED_STREAK) void this.reportError(error)
    }
    if (this.#stopped) return
    // Leases last `leaseSeconds` from each heartbeat: beat three times per lease, at least every 10 s.
    const interval = this.#registered
      ? Math.min(MAX_HEARTBEAT_INTERVAL_MS, this.#leaseMs / 3)
      : backoff(this.#heartbeatFailures, 500, MAX_HEARTBEAT_INTERVAL_MS)
    this.#heartbeatTimer = setTimeout(() => void this.#heartbeat(), interval)
  }

  async #pollLoop(): Promise<void> {
    await Promise.race([this.#registeredOnce, this.#stopRequested])
    const { api, log } = this.#options
    let failures = 0
    while (!this.#stopping) {
      const max = Math.min(MAX_JOBS_PER_POLL, this.#freePlaces())
      if (max <= 0) {
        await Promise.race([this.#placeFreed.promise, this.#stopRequested])
        continue
      }
      this.#pollAbort = new AbortController()
      let jobs: AgentJob[]
      try {
        // A quick first poll (and after a failure) shows at once that polling works, for readiness.
        const wait = this.#pollingOk ? POLL_WAIT_SECONDS : 0
        jobs = await api.pollJobs(max, wait, this.#pollAbort.signal)
        failures = 0
        this.#pollingOk = true
        this.#svcAnswered.poll = true
      } catch (error) {
        if (this.#stopping) break
        if (error instanceof ApiError && error.keyRefused) return this.#keyRefused(error)
        if (!this.#svcAnswered.poll && error instanceof ApiError && error.notFromSvc)
          return this.#notSvc(error)
        failures++
        this.#pollingOk = false
        log.warn(this.scrub(`polling for jobs failed: ${messageOf(error)}`))
        if (failures === REPORTED_STREAK) void this.reportError(error)
        await Promise.race([sleep(backoff(failures, 1_000, 15_000)), this.#stopRequested])
        continue
      } finally {
        this.#pollAbort = null
      }
      // Jobs that arrive as shutdown starts are leased to us already: run them within the grace.
      for (const job of jobs) this.#startJob(job)
    }
  }

  /**
   * Runs that can start now. A run's place frees when the run ends, so runs go on while results are
   * posted (each post waits for the server's commit); jobs posting their results count against twice
   * the concurrency, which bounds the outcomes held while the server is slow or away.
   */
  #freePlaces(): number {
    const { jobConcurrency } = this.#config
    return Math.min(jobConcurrency - this.#runs, 2 * jobConcurrency - this.#running.size)
  }

  #freed(): void {
    this.#placeFreed.resolve()
    this.#placeFreed = Promise.withResolvers<void>()
  }

  #startJob(job: AgentJob): void {
    this.#runs++
    let ran = false
    const runEnded = () => {
      if (ran) return
      ran = true
      this.#runs--
      this.#freed()
      this.#options.onRunEnded?.(job.jobId)
    }
    const run = this.#execute(job, runEnded)
      .catch((error: unknown) => {
        this.#options.log.error(this.scrub(`job ${job.jobId} failed: ${messageOf(error)}`))
        return this.reportError(error, this.#scrubberOf(job))
      })
      .finally(() => {
        runEnded()
        this.#running.delete(job.jobId)
        this.#freed()
      })
    this.#running.set(job.jobId, run)
  }

  #scrubberOf(job: AgentJob): Scrubber {
    return new Scrubber([...job.hidden, ...this.#config.secrets, this.#config.apiKey])
  }

  /** Runs `job` and posts its outcome; `runEnded` is called once the run is over, before posting. */
  async #execute(job: AgentJob, runEnded: () => void): Promise<void> {
    const scrubber = this.#scrubberOf(job)
    const isScript = 'script' in job.job
    const artifactsDir = isScript ? await mkdtemp(join(tmpdir(), 'svc-agent-run-')) : undefined
    const runnable = onAgentRuntime(job.job)
    try {
      let outcome: RunOutcome
      if (!(job.job.checkType in DETAIL_KEYS)) {
        outcome = internalOutcome(
          job.checkType,
          `This agent (version ${this.#options.version}) cannot run ${job.checkType} checks`,
        )
      } else {
        const cancel = new AbortController()
        if (isScript) this.#cancels.set(job.jobId, cancel)
        try {
          outcome = await runJob(this.#withAgentSecrets(runnable.job), {
            now: () => new Date(),
            // The pool also starts an API check's setup and teardown scripts (none: nothing starts).
            playwright: this.#playwright(),
            ...(isScript ? { artifactsDir } : {}),
            signal: AbortSignal.any([this.#abandon.signal, cancel.signal]),
            ...this.#checkProxy(job),
            ...this.#options.runner,
          } as JobRunnerContext)
        } catch (error) {
          // A failing target is an outcome; a throw is a bug, reported and recorded as INTERNAL.
          void this.reportError(error, scrubber)
          outcome = internalOutcome(job.checkType, `The run could not be carried out: ${messageOf(error)}`)
        } finally {
          this.#cancels.delete(job.jobId)
        }
      }
      runEnded()
      if (this.#abandon.signal.aborted) return
      outcome = outcomeToSend(outcome, scrubber, runnable.note)
      if (artifactsDir) await this.#results.uploadArtifacts(job, outcome, artifactsDir)
      await this.#results.post(jobResultBody(job, outcome))
    } finally {
      if (artifactsDir) await rm(artifactsDir, { recursive: true, force: true }).catch(() => {})
    }
  }

  /** The location's proxy when it names one, else the agent's HTTP_PROXY / HTTPS_PROXY / NO_PROXY. */
  #checkProxy(job: AgentJob): Pick<JobRunnerContext, 'proxy'> {
    const { proxy } = this.#config
    if (job.proxyUrl)
      return { proxy: { httpProxy: job.proxyUrl, httpsProxy: job.proxyUrl, noProxy: proxy.noProxy } }
    return proxy.httpProxy || proxy.httpsProxy ? { proxy } : {}
  }

  /** The agent's own SVC_SECRET_* values and key are scrubbed from script output and traces too. */
  #withAgentSecrets(job: RunnerJob): RunnerJob {
    if (!('script' in job)) return job
    const secrets = [...(job.script.secrets ?? []), ...this.#config.secrets, this.#config.apiKey]
    return { ...job, script: { ...job.script, secrets } }
  }

  #playwright(): PlaywrightPool {
    this.#pool ??= new PlaywrightPool({
      chromiumPath: this.#config.chromiumPath,
      concurrency: this.#config.browserConcurrency,
      sandbox: this.#config.scriptSandbox,
      hiddenPaths: this.#config.scriptHiddenPaths,
      onWarning: (message) => this.#options.log.warn(message),
    })
    return this.#pool
  }

  #keyRefused(error: ApiError): void {
    this.#registered = false
    this.#pollingOk = false
    this.#options.onKeyRefused(error)
  }

  #notSvc(error: ApiError): void {
    this.#registered = false
    this.#pollingOk = false
    this.#options.onNotSvc(error)
  }
}
