import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { parseArgs } from 'node:util'
import { type Logger, SvcAgent } from './agent.ts'
import { AgentApi, dispatcherOf } from './api-client.ts'
import { type AgentConfig, ConfigError, loadAgentConfig } from './config.ts'
import { startHealthServer } from './health.ts'
import { AGENT_VERSION } from './version.ts'

/** `npm run agent`: one agent of a private location, configured by its environment. */
async function main(): Promise<void> {
  const values = argumentsOf(process.argv.slice(2))
  const config = loadAgentConfig()
  const agentId = randomUUID()
  const agent = createAgent(config, agentId)
  exitOnCrash(agent)
  if (values['refresh-cache']) log.info(`script caches cleared (${await agent.refreshCache()})`)
  const health = await startHealthServer(config.healthPort, () => agent.readiness()).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') throw error
      throw new ConfigError(
        `AGENT_HEALTH_PORT ${config.healthPort} is in use: stop what listens there or set AGENT_HEALTH_PORT to a free port`,
      )
    },
  )
  const sandbox = await agent.scriptSandbox()
  agent.start()
  log.info(
    `svc agent ${AGENT_VERSION} (${agentId}) started: server ${config.apiUrl}, ${config.jobConcurrency} ` +
      `jobs at once, health probes on port ${health.port}, error events ${config.externalObservability ? 'on' : 'off'}, ` +
      `script checks ${sandbox.sandboxed ? 'in' : 'WITHOUT'} the sandbox`,
  )
  const stop = (signal: string) => {
    log.info(`${signal} received`)
    void agent.shutdown().then(() => process.exit(0))
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}

const log: Logger = {
  info: (message: string) => process.stdout.write(`${new Date().toISOString()} info ${message}\n`),
  warn: (message: string) => process.stderr.write(`${new Date().toISOString()} warn ${message}\n`),
  error: (message: string) => process.stderr.write(`${new Date().toISOString()} error ${message}\n`),
}

/** The agent, exiting with a message that says what to fix when its key or server URL is wrong. */
function createAgent(config: AgentConfig, agentId: string): SvcAgent {
  const api = new AgentApi({
    apiUrl: config.apiUrl,
    apiKey: config.apiKey,
    agentId,
    dispatcher: dispatcherOf(config.proxy),
  })
  const agent: SvcAgent = new SvcAgent({
    config,
    api,
    version: AGENT_VERSION,
    hostname: hostname(),
    log,
    onKeyRefused(error) {
      log.error(
        `the server refused this agent’s key (${error.message}): it is wrong or was revoked. Create a ` +
          'key with POST /v1/private-locations/{id}/keys and restart the agent with API_KEY set to it.',
      )
      process.exit(1)
    },
    onNotSvc(error) {
      log.error(
        agent.scrub(
          `SVC_API_URL ${config.apiUrl} is not an svc server: ${error.request} answered HTTP ${error.status}` +
            `${error.unlikeSvc ? ` with ${error.unlikeSvc}` : ''}. Set SVC_API_URL to the base URL of the ` +
            'svc server (the one serving /v1 and /agent/v1) and restart the agent.',
        ),
      )
      process.exit(1)
    },
  })
  return agent
}

/** An uncaught error is logged (scrubbed), reported as an error event for up to 3 s, then exits. */
function exitOnCrash(agent: SvcAgent): void {
  // A log sink that went away (EPIPE: a log collector restarting, `| head`) is not a crash: writing to
  // it would fail again from the crash handler, on and on, starving the probes and signal handlers.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {})
  let crashed = false
  const crash = (error: unknown) => {
    if (crashed) return
    crashed = true
    log.error(
      agent.scrub(`uncaught error: ${error instanceof Error ? (error.stack ?? error.message) : error}`),
    )
    const reported = agent.reportError(error)
    const timeout = new Promise((done) => setTimeout(done, 3_000).unref())
    void Promise.race([reported, timeout]).then(() => process.exit(1))
  }
  process.on('uncaughtException', crash)
  process.on('unhandledRejection', crash)
}

function argumentsOf(args: string[]) {
  try {
    return parseArgs({ args, options: { 'refresh-cache': { type: 'boolean' } } }).values
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. usage: npm run agent [-- --refresh-cache]`)
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    error instanceof ConfigError
      ? `svc agent: ${error.message}\n`
      : `svc agent failed to start: ${error instanceof Error ? error.message : error}\n`,
  )
  process.exit(1)
})
