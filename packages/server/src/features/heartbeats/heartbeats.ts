import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject } from '@svc/core'
import { apartFromCommitRecords } from '@svc/db'
import { Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import { heartbeatResultWrite } from '../../runs/heartbeat-results.ts'
import { HEARTBEAT_LOCATION, type HeartbeatSettings, heartbeatWindowMs } from '../../runs/heartbeat-window.ts'
import { CheckDeletedError, type ResultWrite, writeResults } from '../../runs/store.ts'
import { findChecksByHeartbeatTokens } from '../checks/check-lookups.service.ts'
import { type ResolvedCheck, resolveCheckRows } from '../checks/resolve-check.ts'

export interface Ping {
  token: string
  kind: 'RECEIVED' | 'FAIL_PING'
  method: string
}

interface PendingPing {
  ping: Ping
  at: Date
  resolve(): void
  reject(error: unknown): void
}

/**
 * Takes heartbeat pings for one store. A ping records a passing result and moves the check's deadline
 * to period + grace from now; `/fail` records a failing one at once. A paused heartbeat (or one in a
 * paused group) acknowledges pings without judging them.
 *
 * Pings that arrive in the same turn of the event loop are handled together: one token lookup, one
 * resolution of their checks, and their results handed to the store as one batch at once (not a turn
 * later, when the next turn's pings would split it), each check's deadline moved once (by its latest
 * ping) in the same transaction. Each ping resolves once its result is committed.
 */
export function createPingIntake(
  ctx: ServiceContext,
  hooks: PingHooks = {},
): { record(ping: Ping): Promise<void> } {
  let pending: PendingPing[] = []
  const flush = () => {
    const batch = pending
    pending = []
    handlePings(ctx, batch, hooks).catch((error: unknown) => {
      for (const p of batch) p.reject(error)
    })
  }
  return {
    record(ping) {
      return new Promise<void>((resolve, reject) => {
        pending.push({ ping, at: ctx.clock.now(), resolve, reject })
        // Handled for every ping of the turn: apart from the first one's request (a ping saves one
        // result, so a failed one saved nothing).
        if (pending.length === 1) setImmediate(() => apartFromCommitRecords(flush))
      })
    },
  }
}

/** For tests: what runs between the lookup of a batch's checks and the store of its results. */
export interface PingHooks {
  beforeStore?: () => Promise<void>
}

async function handlePings(ctx: ServiceContext, batch: PendingPing[], hooks: PingHooks): Promise<void> {
  const checks = await checksByToken(ctx, [...new Set(batch.map((p) => p.ping.token))])
  const latestPing = new Map<string, PendingPing>()
  for (const p of batch) {
    const check = checks.get(p.ping.token)
    if (check) latestPing.set(check.row.id, p)
  }
  const writes: ResultWrite[] = []
  const writers: PendingPing[] = []
  for (const p of batch) {
    const check = checks.get(p.ping.token)
    if (!check) {
      p.reject(unknownHeartbeat())
      continue
    }
    const { row, definition, groupActivated } = check
    if (!definition.activated || !groupActivated) {
      p.resolve()
      continue
    }
    const deadline = p.at.getTime() + heartbeatWindowMs(definition.heartbeat as HeartbeatSettings)
    const { kind, method } = p.ping
    const event = {
      kind,
      method,
      at: p.at,
      message: kind === 'FAIL_PING' ? 'The job reported a failure (/fail ping)' : undefined,
    }
    const slotMove =
      latestPing.get(row.id) === p
        ? { checkId: row.id, location: HEARTBEAT_LOCATION, nextDueMs: deadline }
        : undefined
    writes.push(heartbeatResultWrite(ctx, row, event, check, slotMove))
    writers.push(p)
  }
  if (writes.length > 0) await hooks.beforeStore?.()
  await Promise.all(
    writeResults(ctx, writes).map((stored, i) => {
      const p = writers[i] as PendingPing
      // Its check deleted since the lookup: the token is unknown now.
      return stored.then(
        () => p.resolve(),
        (error: unknown) => p.reject(error instanceof CheckDeletedError ? unknownHeartbeat() : error),
      )
    }),
  )
}

const unknownHeartbeat = () => notFound('Unknown heartbeat')

/** Bounds the tokens per lookup, well within both engines' parameter limits. */
const TOKENS_PER_LOOKUP = 500

async function checksByToken(ctx: ServiceContext, tokens: string[]): Promise<Map<string, ResolvedCheck>> {
  const rows = []
  for (let i = 0; i < tokens.length; i += TOKENS_PER_LOOKUP) {
    rows.push(...(await findChecksByHeartbeatTokens(ctx, tokens.slice(i, i + TOKENS_PER_LOOKUP))))
  }
  const resolved = await resolveCheckRows(ctx, rows)
  return new Map(resolved.map((check) => [check.row.heartbeat_token as string, check]))
}

const PingParams = StrictObject({ token: Type.String({ minLength: 1, maxLength: 128 }) })

export const heartbeatRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  const intake = createPingIntake(ctx)
  // A ping's body is the caller's (`curl -d` posts a form, jobs post logs): drained unread whatever its
  // type, so no body ever costs a ping.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => {
    payload.on('error', done)
    payload.on('end', () => done(null, undefined))
    payload.resume()
  })
  for (const [suffix, kind] of [
    ['', 'RECEIVED'],
    ['/fail', 'FAIL_PING'],
  ] as const) {
    app.route({
      method: ['GET', 'POST', 'HEAD'],
      url: `/ping/:token${suffix}`,
      schema: {
        tags: ['heartbeats'],
        summary: kind === 'RECEIVED' ? 'Ping a heartbeat check' : 'Report a failed run of a heartbeat check',
        description: 'No API key: the token in the URL is the secret. Answers 200 `OK`.',
        params: PingParams,
        response: { 200: Type.String({ description: 'OK' }) },
      },
      handler: async (request, reply) => {
        await intake.record({ token: request.params.token, kind, method: request.method })
        return reply.type('text/plain').send('OK')
      },
    })
  }
}
