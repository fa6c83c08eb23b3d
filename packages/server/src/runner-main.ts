import { parseArgs } from 'node:util'
import { MigrationError } from '@svc/db'
import { serviceContextOf } from './app.ts'
import { type Config, ConfigError, loadConfig, parseRunnerLocations } from './config.ts'
import { EncryptionKeyError } from './features/encryption-keys/key-verification.ts'
import { openKeyedStore } from './open-keyed-store.ts'
import { createScheduler } from './runs/scheduler.ts'
import { artifactStoreOf, scriptRunnerOf } from './runs/script-checks.ts'
import { listenForWakeups } from './wakeups.ts'

const USAGE = 'usage: npm run runner -- --location <name>[,<name>...] [--location <name>]'

/**
 * A process that only runs checks, for the given data-center locations, against the same store as the
 * servers (`svc runner`): start one on each host that should run a location's checks, and set
 * SVC_RUNNER_LOCATIONS on the servers so they leave those locations to it.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { location: { type: 'string', multiple: true }, help: { type: 'boolean' } },
  })
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const config = loadConfig()
  const locations = parseRunnerLocations((values.location ?? []).join(','), config.locations.served)
  if (!values.location?.length || locations.length === 0) throw new ConfigError(`name a location. ${USAGE}`)
  const { store, ctx } = await openRunnerContext(config)
  const scheduler = createScheduler(ctx, {
    locations,
    concurrency: config.runnerConcurrency,
    leaseMs: config.runnerLeaseMs,
    adaptSlotGrain: true,
  })
  const sandbox = await ctx.scripts.pool.start()
  // On PostgreSQL the scheduler sleeps until a slot is due or a server's write wakes it (wakeups.ts).
  const wakeups = listenForWakeups(config.databaseUrl, {
    warn: (details, message) =>
      process.stderr.write(
        `svc runner: warning: ${message}: ${String((details as { err?: unknown }).err)}\n`,
      ),
  })
  scheduler.start()
  process.stdout.write(
    `svc runner is running checks for ${locations.join(', ')} (store: ${store.engine}; script checks ${sandbox.sandboxed ? 'in' : 'WITHOUT'} the sandbox)\n`,
  )

  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    // Runs still going after the grace keep their leases until those run out; another node reruns them.
    const graceOver = new Promise<void>((over) => setTimeout(over, config.shutdownGraceMs).unref())
    await Promise.race([scheduler.stop(), graceOver])
    await wakeups.close()
    await ctx.scripts.pool.close()
    await store.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop())
  process.on('SIGINT', () => void stop())
}

/** The store (migrated) and the context a runner node runs checks with. */
async function openRunnerContext(config: Config) {
  const { store, secretBox } = await openKeyedStore(config, { createKey: false })
  const ctx = serviceContextOf({
    store,
    secretBox,
    scripts: scriptRunnerOf(config, await artifactStoreOf(config), (message) =>
      process.stderr.write(`svc runner: warning: ${message}\n`),
    ),
    runnerLeaseMs: config.runnerLeaseMs,
    resultCommitDelayMs: config.resultCommitDelayMs,
    publicUrl: config.publicUrl,
    locations: config.locations,
  })
  return { store, ctx }
}

main().catch((error: unknown) => {
  process.stderr.write(
    error instanceof ConfigError || error instanceof EncryptionKeyError || error instanceof MigrationError
      ? `svc runner: ${error.message}\n`
      : `svc runner failed to start: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
  )
  process.exit(1)
})
