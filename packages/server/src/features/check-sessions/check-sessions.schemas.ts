import { Nullable, StrictObject } from '@svc/core'
import { Type } from 'typebox'
import { SessionVariables } from '../test-sessions/test-sessions.schemas.ts'

const Uuid = Type.String({ format: 'uuid' })

export const TriggerCheckSessionBody = StrictObject({
  target: Type.Optional(
    StrictObject({
      matchTags: Type.Optional(
        Type.Array(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 50 }), {
          maxItems: 50,
        }),
      ),
      checkId: Type.Optional(Type.Array(Uuid, { maxItems: 500 })),
    }),
  ),
  refreshCache: Type.Optional(Type.Boolean()),
  environmentVariables: Type.Optional(SessionVariables),
})

export const CheckSessionParams = StrictObject({ checkSessionId: Uuid })

export const CompletionQuery = StrictObject({
  maxWaitSeconds: Type.Optional(Type.Number({ minimum: 1, maximum: 30 })),
})

/** Optional: the hosted API's subset of sequences; svc cancels the whole session. */
export const CancelBody = Nullable(
  StrictObject({ sequenceId: Type.Optional(Type.Array(Uuid, { minItems: 1 })) }),
)

const ConciseResult = Type.Object({
  checkResultId: Type.String(),
  checkResultLink: Type.String(),
  checkId: Type.String(),
  checkType: Type.String(),
  name: Type.String(),
  runLocation: Type.String(),
  resultType: Type.String(),
  hasErrors: Type.Boolean(),
  hasFailures: Type.Boolean(),
  isDegraded: Type.Boolean(),
  aborted: Type.Boolean(),
  isCancelled: Type.Boolean(),
  responseTime: Nullable(Type.Number()),
  startedAt: Nullable(Type.String()),
  stoppedAt: Nullable(Type.String()),
})

export const CheckSession = Type.Object({
  checkSessionId: Uuid,
  checkSessionLink: Type.String(),
  checkId: Type.String(),
  checkType: Type.String(),
  name: Type.String(),
  status: Type.String(),
  startedAt: Type.String(),
  stoppedAt: Nullable(Type.String()),
  timeElapsed: Type.Number(),
  runLocations: Type.Array(Type.String()),
  runSource: Nullable(Type.String()),
  results: Type.Array(ConciseResult),
})

export const TriggerCheckSessionResponse = Type.Object({ sessions: Type.Array(CheckSession) })
