import { randomUUID } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject } from '@svc/core'
import { Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import { storeHeartbeatResult } from '../../scheduler/heartbeat-results.ts'
import {
  HEARTBEAT_LOCATION,
  type HeartbeatSettings,
  heartbeatWindowMs,
} from '../../scheduler/heartbeat-window.ts'
import { moveDeadline } from '../../scheduler/schedules.repo.ts'
import { findCheckByHeartbeatToken } from '../checks/checks.repo.ts'
import { resolveCheck } from '../checks/checks.service.ts'

/**
 * A ping records a passing result and moves the check's deadline to period + grace from now; `/fail`
 * records a failing one at once. The token is the secret, so no API key is needed.
 */
export async function recordPing(
  ctx: ServiceContext,
  token: string,
  kind: 'RECEIVED' | 'FAIL_PING',
  method: string,
) {
  const check = await findCheckByHeartbeatToken(ctx, token)
  if (!check) throw notFound('Unknown heartbeat')
  const resolved = await resolveCheck(ctx, check)
  const { definition, groupActivated } = resolved
  // A paused heartbeat (or one in a paused group) acknowledges pings without judging them.
  if (!definition.activated || !groupActivated) return
  const message = kind === 'FAIL_PING' ? 'The job reported a failure (/fail ping)' : undefined
  const deadline = ctx.clock.now().getTime() + heartbeatWindowMs(definition.heartbeat as HeartbeatSettings)
  // The result (with its alert fold) and the moved deadline commit together.
  await storeHeartbeatResult(
    ctx,
    check,
    { jobId: `ping:${randomUUID()}`, kind, message, method },
    resolved,
    (tx) => moveDeadline(tx, check.id, HEARTBEAT_LOCATION, deadline),
  )
}

const PingParams = StrictObject({ token: Type.String({ minLength: 1, maxLength: 128 }) })

export const heartbeatRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
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
        await recordPing(ctx, request.params.token, kind, request.method)
        return reply.type('text/plain').send('OK')
      },
    })
  }
}
