import { DateTime, Nullable, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'

const FINISHED_STATUSES = ['COMPLETED', 'FAILED'] as const

export const CreateAnalysisParams = StrictObject({ errorGroupId: Type.String({ format: 'uuid' }) })
export const AnalysisParams = StrictObject({ id: Type.String({ format: 'uuid' }) })

export const CreateAnalysisBody = Nullable(
  StrictObject({
    userContext: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 256,
          default: '',
          description: 'Optional context for the impact and cause analysis (what you know or changed).',
        }),
      ),
    ),
  }),
)
export type CreateAnalysisBody = Static<typeof CreateAnalysisBody>

export const AcceptedAnalysis = Type.Object(
  { id: Type.String({ format: 'uuid' }), status: StringEnum(['PENDING'] as const) },
  { title: 'RootCauseAnalysisAccepted' },
)

const Location = Type.Object({
  location: Type.String(),
  since: DateTime(),
  lastSeen: DateTime(),
  failures: Type.Integer(),
  lastGoodBefore: Nullable(DateTime()),
})

/** Where a failure shows first, from name resolution to the answer; what an analysis names as failing. */
export const PHASES = [
  'DNS',
  'TCP',
  'TLS',
  'HTTP_STATUS',
  'ASSERTION',
  'TIMEOUT',
  'SCRIPT',
  'PACKET_LOSS',
  'HEARTBEAT',
  'UNKNOWN',
] as const
export type Phase = (typeof PHASES)[number]

export const AnalysisBody = Type.Object({
  classification: Type.String(),
  failingPhase: StringEnum(PHASES),
  phaseDetail: Nullable(Type.String()),
  since: DateTime({ description: 'When the failures started (the earliest location).' }),
  affectedLocations: Type.Array(Location),
  healthyLocations: Type.Array(Type.String()),
  changes: Type.Array(
    Type.Object({
      kind: StringEnum([
        'CHECK_CONFIG',
        'REQUEST',
        'CERTIFICATE',
        'RESPONSE_STATUS',
        'RESPONSE_SIZE',
        'LATENCY',
      ] as const),
      at: Nullable(DateTime()),
      description: Type.String(),
    }),
  ),
  similarGroups: Type.Array(
    Type.Object({
      errorGroupId: Type.String(),
      checkId: Type.String(),
      checkName: Type.String(),
      cleanedErrorMessage: Type.String(),
      firstSeen: DateTime(),
      sameError: Type.Boolean(),
    }),
  ),
  rootCause: Type.String(),
  userImpact: Type.String(),
  summary: Type.String({ description: "svc's rules write it, or the model at SVC_LLM_URL when set." }),
  nextSteps: Type.Array(Type.String()),
  evidence: Type.Array(
    Type.Object({
      description: Type.String(),
      artifacts: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
    }),
  ),
  userContext: Type.String(),
  referenceLinks: Type.Array(Type.Object({ url: Type.String(), title: Type.String() })),
})

/**
 * An analysis not finished yet, answered with 202 as the hosted API does: its status is `PENDING` whether
 * it waits or runs (the hosted enum has no RUNNING), and `running` says which.
 */
export const PendingAnalysis = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: StringEnum(['PENDING'] as const),
    running: Type.Boolean({ description: 'Whether a worker runs it now (else it waits for one).' }),
    checkId: Type.String({ format: 'uuid' }),
    errorGroupId: Type.String({ format: 'uuid' }),
    checkType: Type.String(),
    userContext: Type.String(),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { title: 'RootCauseAnalysisPending' },
)
export type PendingAnalysis = Static<typeof PendingAnalysis>

/** A finished analysis: `COMPLETED` with `analysis`, or `FAILED` with `failureReason`. */
export const RootCauseAnalysis = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: StringEnum(FINISHED_STATUSES),
    checkId: Type.String({ format: 'uuid' }),
    errorGroupId: Type.String({ format: 'uuid' }),
    checkType: Type.String(),
    provider: Nullable(Type.String({ description: '`svc-rules`, or `openai-compatible` (SVC_LLM_URL).' })),
    model: Nullable(Type.String()),
    durationMs: Nullable(Type.Integer()),
    userContext: Type.String(),
    analysis: Nullable(AnalysisBody),
    failureReason: Nullable(Type.String()),
    created_at: DateTime(),
    updated_at: DateTime(),
    completedAt: Nullable(DateTime()),
  },
  { title: 'RootCauseAnalysis' },
)
export type RootCauseAnalysis = Static<typeof RootCauseAnalysis>
