import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { MigrationError } from '@svc/db'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { type AppDeps, buildApp, serviceContextOf } from './app.ts'
import { bootstrapFirstAccount, OWNER_EMAIL } from './bootstrap.ts'
import { type Config, ConfigError, loadConfig } from './config.ts'
import type { ServiceContext } from './context.ts'
import { forgetOldScriptRuns } from './features/agent-protocol/agent-artifacts.service.ts'
import { createDispatcher, takeBackDeliveries } from './features/alerting/dispatcher.ts'
import { DEFAULT_WEB_DIST_DIR } from './features/dashboard-hosting/dashboard-hosting.ts'
import { createKeyRotation } from './features/encryption-keys/key-rotation.ts'
import { EncryptionKeyError } from './features/encryption-keys/key-verification.ts'
import { sealPlainRequests } from './features/projects/deployment-requests.ts'
import { retentionSteps } from './features/retention/retention.service.ts'
import { createRootCauseWorker } from './features/root-cause-analyses/worker.ts'
import { pruneSessions } from './features/sessions/sessions.service.ts'
import { startSubscriberMailDelivery } from './features/status-page-subscribers/subscriber-mail.ts'
import { createSessionWorker, takeBackSessionRuns } from './features/test-sessions/session-runner.ts'
import { prettyLogStream } from './http/pretty-log.ts'
import { loadOrCreateNodeId } from './node-life/node-id.ts'
import { beginNodeLife } from './node-life/node-life.ts'
import { pruneNodeLives } from './node-life/node-lives.repo.ts'
import { openKeyedStore } from './open-keyed-store.ts'
import { pruneRateLimitWindows } from './rate-limit/rate-limit.ts'
import { takeBackRuns } from './runs/claim.ts'
import { HEARTBEAT_LOCATION } from './runs/heartbeat-window.ts'
import { createScheduler } from './runs/scheduler.ts'
import { artifactStoreOf, scriptRunnerOf } from './runs/script-checks.ts'
import { listenForWakeups } from './wakeups.ts'

const PRUNE_INTERVAL_MS = 60 * 60_000
/** A dead life no later life of its node took back (its node gone for good) is forgotten after a day. */
const DEAD_LIFE_KEPT_MS = 86_400_000

type Log = FastifyBaseLogger
type FirstAccount = Awaited<ReturnType<typeof bootstrapFirstAccount>>
/** A background worker that takes no new work once stopped, and resolves when what it runs has finished. */
type Stoppable = { stop(): Promise<unknown> }

/** Reads config, opens and migrates the store, serves, and shuts down gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfig()
  const { store, deps, app } = await openApp(config)
  await listen(app, config)
  const serviceContext = serviceContextOf(deps)
  // The first account and key only once the server serves: a start that can't listen (a port in use)
  // must not create the key it can't show, since later starts never print it.
  const first = await bootstrapFirstAccount(serviceContext, config.bootstrapApiKey)
  // Before the first run: leftover run directories of crashed processes go, the sandbox is probed.
  const sandbox = await deps.scripts.pool.start()
  app.log.info(
    { scriptSandbox: sandbox },
    `script checks run ${sandbox.sandboxed ? 'in' : 'WITHOUT'} the sandbox`,
  )
  const life = await startNodeLife(serviceContext, config, app.log)
  // Background workers sleep until work is queued on any node (PostgreSQL's NOTIFY, wakeups.ts) or due.
  const wakeups = listenForWakeups(config.databaseUrl, app.log)
  const workers = startWorkers(serviceContext, config, app.log, life.id)
  const pruning = startPruning(serviceContext, config, app.log)
  printBanner(config, store.engine, first)
  const stop = once(async (signal: string) => {
    app.log.info({ signal }, 'shutting down')
    clearInterval(pruning)
    await drain(app, workers, config.shutdownGraceMs)
    await life.stop().catch((error: unknown) => app.log.error({ err: error }, 'ending the node life failed'))
    await wakeups.close()
    await deps.scripts.pool.close()
    await store.close()
    process.exit(0)
  })
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

/** The store opened and migrated, its secrets' box, and the app built on them (not listening yet). */
async function openApp(config: Config) {
  const { store, secretBox } = await openKeyedStore(config, { createKey: true })
  await sealPlainRequests({ db: store.db, secretBox })
  const deps: AppDeps = {
    store,
    secretBox,
    // The pool warns (no working sandbox under `auto`) from its start in main, when the app's log exists.
    scripts: scriptRunnerOf(config, await artifactStoreOf(config), (message) => app.log.warn(message)),
    runnerLeaseMs: config.runnerLeaseMs,
    resultCommitDelayMs: config.resultCommitDelayMs,
    deploymentLeaseMs: config.deploymentLeaseMs,
    staticAddresses: config.staticAddresses,
    publicUrl: config.publicUrl,
    adminToken: config.adminToken,
    trustProxy: config.trustProxy,
    limits: config.limits,
    locations: config.locations,
    alerting: config.alerting,
    sessions: config.sessions,
    connectionLimits: config.connectionLimits,
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      ...(config.logFormat === 'pretty' ? { stream: prettyLogStream(process.stdout) } : {}),
    },
  }
  const app = await buildApp(deps)
  return { store, deps, app }
}

/** Listens on HOST:PORT; an address in use or not of this machine is a config error, said plainly. */
async function listen(app: FastifyInstance, config: Config): Promise<void> {
  await app.listen({ port: config.port, host: config.host }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new ConfigError(
        `PORT ${config.port} is in use on ${config.host}: stop what listens there or set PORT to a free port`,
      )
    }
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
      throw new ConfigError(
        `HOST ${config.host} is not an address of this machine: set HOST to one of its addresses (0.0.0.0: all of them)`,
      )
    }
    throw error
  })
}

/** This node's life, begun before the first claim: the leases a crashed life of it held are taken back. */
async function startNodeLife(serviceContext: ServiceContext, config: Config, log: Log) {
  const life = await beginNodeLife(serviceContext, {
    nodeId: loadOrCreateNodeId(config.nodeId, config.dataDir),
    takeBack: async (deadLife) => {
      await takeBackRuns(serviceContext, deadLife)
      await takeBackDeliveries(serviceContext, deadLife)
      await takeBackSessionRuns(serviceContext, deadLife)
    },
    lost: () => {
      // Taken for dead (silent past the lease of its life): its leases may be another's now.
      log.error('another process took this node life for dead and its leases back: exiting')
      process.exit(1)
    },
    log,
  })
  life.start()
  return life
}

/** Starts every background worker of a server node, each under this node life's leases. */
function startWorkers(serviceContext: ServiceContext, config: Config, log: Log, lifeId: string): Stoppable[] {
  // Heartbeat deadlines are the servers' own work; locations may be left to `npm run runner` processes.
  const scheduler = createScheduler(serviceContext, {
    locations: [...config.runnerLocations, HEARTBEAT_LOCATION],
    concurrency: config.runnerConcurrency,
    leaseMs: config.runnerLeaseMs,
    adaptSlotGrain: true,
    log,
    lifeId,
  })
  // Test and check sessions' runs (svc test, CI triggers): claimed under leases on every node.
  const sessionWorker = createSessionWorker(serviceContext, {
    lifeId,
    locations: config.runnerLocations,
    concurrency: config.runnerConcurrency,
    log,
  })
  // Alerting: delivers the outbox (and wakes reminders and time-based escalations) on every node.
  const dispatcher = createDispatcher(serviceContext, { log, lifeId })
  // Root cause analyses: background jobs under leases, on every node.
  const analyses = createRootCauseWorker(serviceContext, { llm: config.llm, log })
  // Re-seals values under SVC_ENCRYPTION_KEY_PREVIOUS with the current key, on every node that has it.
  const keyRotation = createKeyRotation(serviceContext, {
    log: {
      info: (message) => log.info(message),
      warn: (message) => log.warn(message),
      error: (obj, message) => log.error(obj, message),
    },
  })
  const started = [scheduler, sessionWorker, dispatcher, analyses, keyRotation]
  for (const worker of started) worker.start()
  const subscriberMail = startSubscriberMail(serviceContext, config, log)
  return subscriberMail ? [...started, subscriberMail] : started
}

/** Status page subscriber mail (until it moves to the shared alert outbox), when SMTP is set. */
function startSubscriberMail(serviceContext: ServiceContext, config: Config, log: Log) {
  if (config.alerting.smtp) {
    return startSubscriberMailDelivery(serviceContext, {
      smtpUrl: config.alerting.smtp.url,
      from: config.alerting.smtp.from,
      log,
    })
  }
  log.warn(
    'SVC_SMTP_URL is not set: status page subscribers get no mail (confirmations and updates wait in the store until a server with it starts) and EMAIL alert channels fail',
  )
  return undefined
}

/** Hourly housekeeping, one step after another; a step that fails (an S3 bucket away) doesn't skip the rest. */
function startPruning(serviceContext: ServiceContext, config: Config, log: Log): NodeJS.Timeout {
  const pruningSteps: [string, () => Promise<unknown>][] = [
    ...retentionSteps(serviceContext, config.resultRetentionDays),
    ['old agent script runs', () => forgetOldScriptRuns(serviceContext)],
    ['rate limit windows', () => pruneRateLimitWindows(serviceContext)],
    ['ended sessions', () => pruneSessions(serviceContext)],
    ['dead node lives', () => pruneNodeLives(serviceContext, Date.now() - DEAD_LIFE_KEPT_MS)],
  ]
  return setInterval(async () => {
    for (const [what, step] of pruningSteps) {
      await step().catch((error: unknown) => log.error({ err: error }, `pruning ${what} failed`))
    }
  }, PRUNE_INTERVAL_MS)
}

/** Where the server is, and on a first start the owner's account, key and password link. */
function printBanner(config: Config, engine: string, first: FirstAccount): void {
  const dashboardBuilt = existsSync(join(DEFAULT_WEB_DIST_DIR, 'index.html'))
  const lines = [
    `svc is running at ${config.publicUrl} (store: ${engine})`,
    dashboardBuilt
      ? `  dashboard:  ${config.publicUrl}/`
      : '  dashboard:  not built: run npm run build -w @svc/web (the API works meanwhile)',
  ]
  if (first && config.bootstrapApiKey !== undefined) {
    // A key the user chose is theirs already: not printed (logs are often kept and shared).
    lines.push(
      `  account id: ${first.accountId}`,
      '  API key:    the one set in SVC_BOOTSTRAP_API_KEY (not printed)',
      `  try:        curl -H "Authorization: Bearer $SVC_BOOTSTRAP_API_KEY" ${config.publicUrl}/v1/accounts/me`,
    )
  } else if (first) {
    lines.push(
      `  account id: ${first.accountId}`,
      `  API key:    ${first.apiKey}   (shown once: keep it now)`,
      `  try:        curl -H 'Authorization: Bearer ${first.apiKey}' ${config.publicUrl}/v1/accounts/me`,
    )
  }
  if (first) {
    lines.push(
      `  password:   ${first.passwordLink.url}`,
      `              (one-time link to set the owner's password, until ${first.passwordLink.expiresAt}; sign-in email ${OWNER_EMAIL})`,
    )
  }
  lines.push(`  API docs:   ${config.publicUrl}/docs`)
  process.stdout.write(`${lines.join('\n')}\n`)
}

/**
 * Takes no new work at once (no new connections, 503 on requests over open ones, no claims, no
 * deliveries), then lets what runs finish, within the grace: a run still going after it keeps its
 * lease until that runs out, and another node runs it again.
 */
async function drain(app: FastifyInstance, workers: Stoppable[], graceMs: number): Promise<void> {
  const drained = Promise.all([app.close(), ...workers.map((worker) => worker.stop())]).then(() => true)
  const graceOver = new Promise<false>((over) => setTimeout(() => over(false), graceMs).unref())
  if (!(await Promise.race([drained, graceOver]))) {
    app.log.warn(
      { graceSeconds: graceMs / 1000 },
      'shutdown grace over: leaving the runs still going to other nodes (their leases run out)',
    )
  }
}

/** `run` on its first call only; later calls (a second signal) do nothing. */
function once<A extends unknown[]>(run: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  let called = false
  return async (...args) => {
    if (called) return
    called = true
    await run(...args)
  }
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigError ||
    error instanceof EncryptionKeyError ||
    error instanceof MigrationError
  ) {
    process.stderr.write(`svc: ${error.message}\n`)
  } else {
    process.stderr.write(
      `svc failed to start: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
    )
  }
  process.exit(1)
})
