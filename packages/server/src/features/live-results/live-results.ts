import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { SessionRunsTable } from '@svc/db'
import type { Aedes, AuthenticateError, Client, Subscription } from 'aedes'
import type { FastifyInstance } from 'fastify'
import type { WebSocketServer } from 'ws'
import { authenticateKeyInAccount } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { HttpError } from '../../http/errors.ts'
import { followSession, waitForSession } from '../test-sessions/session-progress.service.ts'
import { liveResultMessage } from './live-result-message.ts'

/**
 * Live results for the hosted product's CLI. `checkly test` and `checkly trigger` subscribe over MQTT on a
 * WebSocket (`CHECKLY_MQTT_URL`) to `account/{accountId}/ad-hoc-check-results/{checkRunSuiteId}/+/+/+`
 * before they start a session, signing in with the account id as username and an API key as password.
 * Each subscription follows the session whose id is that suite id (on any node, as the SSE route does)
 * and sends its runs' `run-start`, then `result` (or `error`) messages to that client only. Clients may
 * publish nothing. The broker is made on the first connection: a server nobody follows carries none.
 */
export const LIVE_RESULTS_PATH = '/mqtt'

const SUITE_TOPIC = /^account\/([0-9a-f-]{36})\/ad-hoc-check-results\/([0-9a-f-]{36})\/\+\/\+\/\+$/
/** The CLI subscribes, then starts the session: how long a subscription waits for it to appear. */
const SESSION_APPEARS_WITHIN_MS = 60_000
/** The CLI follows one suite per run; each followed suite reads the store until its session ends. */
const MAX_SUITES_PER_CLIENT = 10

interface Broker {
  aedes: Aedes
  sockets: WebSocketServer
  streamOf: typeof import('ws')['createWebSocketStream']
}

/** Serves MQTT over WebSocket at LIVE_RESULTS_PATH on the app's HTTP server. */
export function serveLiveResults(app: FastifyInstance, ctx: ServiceContext): void {
  let broker: Promise<Broker> | undefined
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://x').pathname !== LIVE_RESULTS_PATH) {
      socket.destroy()
      return
    }
    broker ??= createBroker(ctx, app)
    broker.then(
      ({ aedes, sockets, streamOf }) =>
        sockets.handleUpgrade(request, socket, head, (ws) => aedes.handle(streamOf(ws), request)),
      () => socket.destroy(),
    )
  })
  app.addHook('onClose', async () => {
    if (!broker) return
    const { aedes, sockets } = await broker
    for (const ws of sockets.clients) ws.terminate()
    await new Promise<void>((done) => aedes.close(() => done()))
  })
}

async function createBroker(ctx: ServiceContext, app: FastifyInstance): Promise<Broker> {
  // Loaded on first use: most servers never see the hosted CLI.
  const [{ Aedes }, { WebSocketServer, createWebSocketStream }] = await Promise.all([
    import('aedes'),
    import('ws'),
  ])
  const aedes = await Aedes.createBroker({ heartbeatInterval: 3_600_000 })
  const accounts = new WeakMap<Client, string>()
  aedes.authenticate = (client, username, password, done) => {
    const ip = client.req?.socket.remoteAddress ?? 'unknown'
    authenticateKeyInAccount(ctx, password?.toString('utf8') ?? '', username ?? '', ip).then(
      (auth) => {
        accounts.set(client, auth.accountId)
        done(null, true)
      },
      (error: unknown) => {
        const refused = new Error(
          error instanceof HttpError ? error.message : 'Not authorized',
        ) as AuthenticateError
        // 4: bad user name or password; 5: not authorized (a key of another account).
        refused.returnCode = error instanceof HttpError && error.statusCode === 403 ? 5 : 4
        if (!(error instanceof HttpError)) app.log.error({ err: error }, 'live results sign-in failed')
        done(refused, false)
      },
    )
  }
  aedes.authorizePublish = (_client, _packet, done) => done(new Error('Clients publish nothing here'))
  aedes.authorizeSubscribe = (client, subscription, done) => {
    const match = client && SUITE_TOPIC.exec(subscription.topic)
    done(null, match && match[1] === accounts.get(client) ? subscription : null)
  }
  const followed = new WeakMap<Client, number>()
  aedes.on('subscribe', (subscriptions: Subscription[], client: Client) => {
    const accountId = accounts.get(client)
    for (const { topic, qos } of subscriptions) {
      const match = SUITE_TOPIC.exec(topic)
      // A refused subscription is listed too, with qos 128.
      const suiteId = (qos as number) !== 128 && match && match[1] === accountId ? match[2] : undefined
      const count = followed.get(client) ?? 0
      if (!accountId || !suiteId || count >= MAX_SUITES_PER_CLIENT) continue
      followed.set(client, count + 1)
      followForClient(ctx, client, accountId, suiteId).catch((error: unknown) => {
        app.log.error({ err: error, suiteId }, 'following a session for live results failed')
      })
    }
  })
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 })
  return { aedes, sockets, streamOf: createWebSocketStream }
}

/** Sends `client` each run of session `suiteId` as it starts and ends, until it ended or the client left. */
async function followForClient(ctx: ServiceContext, client: Client, accountId: string, suiteId: string) {
  const isOpen = () => !client.closed
  const loaded = await waitForSession(ctx, accountId, suiteId, SESSION_APPEARS_WITHIN_MS, isOpen)
  if (!loaded) return
  const base = `account/${accountId}/ad-hoc-check-results/${suiteId}`
  const send = (run: SessionRunsTable, subtopic: string, message: unknown) =>
    client.publish(
      {
        cmd: 'publish',
        topic: `${base}/${run.id}/${run.id}/${subtopic}`,
        payload: Buffer.from(JSON.stringify(message)),
        qos: 0,
        dup: false,
        retain: false,
      },
      () => {},
    )
  for (const run of loaded.runs) send(run, 'run-start', {})
  await followSession(
    ctx,
    accountId,
    suiteId,
    (run) => {
      if (run.status === 'CANCELLED') send(run, 'error', 'The run was cancelled')
      else
        liveResultMessage(ctx, accountId, run).then(
          (message) => send(run, 'result', message),
          () => send(run, 'error', 'The result could not be read'),
        )
    },
    isOpen,
  )
}
