import { CheckEnvironmentVariable, Nullable, StrictObject } from '@svc/core'
import { Type } from 'typebox'

const Uuid = Type.String({ format: 'uuid' })
const Location = Type.String({ minLength: 1, maxLength: 100 })

/** A location by name, or as the hosted CLI sends one (a private one is refused: sessions run in data centers). */
const RunLocation = Type.Union([
  Location,
  StrictObject({ type: Type.Literal('PUBLIC'), region: Location }),
  StrictObject({
    type: Type.Literal('PRIVATE'),
    id: Type.Optional(Type.String({ maxLength: 100 })),
    slugName: Type.Optional(Type.String({ maxLength: 100 })),
  }),
])

export const CheckTargetSchema = StrictObject({
  matchTags: Type.Optional(
    Type.Array(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 50 }), { maxItems: 50 }),
  ),
  checkId: Type.Optional(Type.Array(Uuid, { maxItems: 500 })),
  allowDeactivated: Type.Optional(Type.Boolean({ default: false })),
})

/**
 * A variable a triggered session's runs take over their checks' own (`checkly trigger --env KEY=VALUE`);
 * `locked` or `secret` hides its value from what the runs store.
 */
const SessionVariable = StrictObject({
  key: CheckEnvironmentVariable.properties.key,
  value: CheckEnvironmentVariable.properties.value,
  locked: Type.Optional(Type.Boolean()),
  secret: Type.Optional(Type.Boolean()),
})
export const SessionVariables = Type.Array(SessionVariable, { maxItems: 50 })

/** The hosted API's request, less what svc does not do (retries in a session, cache refresh). */
export const TriggerTestSessionBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    runLocation: Location,
    target: Type.Optional(CheckTargetSchema),
    environmentVariables: Type.Optional(SessionVariables),
    retryStrategy: Type.Optional(Type.Unknown()),
    refreshCache: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
)

/** Unsaved check definitions: each the body of its type, with `checkType` and an optional `logicalId`. */
export const RunTestSessionBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    checkRunJobs: Type.Array(
      Type.Object(
        { checkType: Type.String({ minLength: 1, maxLength: 32 }), logicalId: Type.Optional(Type.String()) },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 500 },
    ),
    runLocation: Type.Optional(RunLocation),
    runLocations: Type.Optional(Type.Array(Location, { minItems: 1, maxItems: 20 })),
  },
  // The hosted CLI sends more (project, repoInfo, sharedFiles, ...), which a run does not need.
  { additionalProperties: true },
)

/** What `checkly trigger` (the hosted product's CLI) sends; what a run does not need is taken and ignored. */
export const HostedTriggerBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    runLocation: Type.Optional(RunLocation),
    checkRunSuiteId: Type.Optional(Uuid),
    targetTags: Type.Optional(
      Type.Array(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 50 }), {
        maxItems: 50,
      }),
    ),
    checkId: Type.Optional(Type.Array(Uuid, { maxItems: 500 })),
    environmentVariables: Type.Optional(SessionVariables),
    // Taken and not needed: svc records every session, and retries none of its runs.
    shouldRecord: Type.Optional(Type.Boolean()),
    repoInfo: Type.Optional(Type.Unknown()),
    environment: Type.Optional(Type.Unknown()),
    testRetryStrategy: Type.Optional(Type.Unknown()),
    refreshCache: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

export const HostedTriggerAnswer = Type.Object({
  testSessionId: Uuid,
  checks: Type.Array(
    Type.Object({ id: Uuid, name: Type.String(), checkType: Type.String(), tags: Type.Array(Type.String()) }),
  ),
  sequenceIds: Type.Record(Type.String(), Type.String()),
})

export const TestSessionParams = StrictObject({ testSessionId: Uuid })
export const TestSessionResultParams = StrictObject({ testSessionId: Uuid, testSessionResultId: Uuid })
export const ArtifactParams = StrictObject({
  testSessionId: Uuid,
  testSessionResultId: Uuid,
  '*': Type.String({ minLength: 1 }),
})

export const CompletionQuery = StrictObject({
  maxWaitSeconds: Type.Optional(Type.Number({ minimum: 1, maximum: 30 })),
})

const Statuses = Type.Union([
  Type.Literal('RUNNING'),
  Type.Literal('FAILED'),
  Type.Literal('PASSED'),
  Type.Literal('CANCELLED'),
])

export const ListTestSessionsQuery = StrictObject({
  from: Type.Optional(Type.Number()),
  to: Type.Optional(Type.Number()),
  limit: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100 }))),
  statuses: Type.Optional(Type.Array(Statuses)),
  branches: Type.Optional(Type.Array(Type.String())),
  users: Type.Optional(Type.Array(Type.String())),
  providers: Type.Optional(Type.Array(Type.String())),
  noUsers: Type.Optional(Type.Boolean()),
  nextId: Type.Optional(Type.String({ minLength: 1 })),
  textSearch: Type.Optional(Type.String({ minLength: 3, maxLength: 200 })),
  errorGroupId: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
})

export const AssetsQuery = StrictObject({
  type: Type.Optional(
    Type.Array(
      Type.Union(
        ['log', 'trace', 'video', 'screenshot', 'pcap', 'report', 'file'].map((value) => Type.Literal(value)),
      ),
    ),
  ),
  name: Type.Optional(Type.String({ maxLength: 200 })),
})

/** Optional: the hosted API's subset of sequences; svc cancels the whole session. */
export const CancelBody = Nullable(
  StrictObject({ sequenceId: Type.Optional(Type.Array(Uuid, { minItems: 1 })) }),
)

export const TestSessionResult = Type.Object(
  {
    testSessionResultId: Uuid,
    testSessionResultLink: Type.String(),
    checkId: Nullable(Type.String()),
    checkType: Type.String(),
    name: Type.String(),
    logicalId: Nullable(Type.String()),
    runLocation: Type.String(),
    errorGroupIds: Type.Array(Type.String()),
    resultType: Type.String(),
    status: Statuses,
    hasErrors: Type.Boolean(),
    hasFailures: Type.Boolean(),
    isDegraded: Type.Boolean(),
    aborted: Type.Boolean(),
    responseTime: Nullable(Type.Number()),
    startedAt: Nullable(Type.String()),
    stoppedAt: Nullable(Type.String()),
    checkResultLink: Nullable(Type.String()),
  },
  { additionalProperties: true },
)

export const TestSession = Type.Object({
  testSessionId: Uuid,
  testSessionLink: Type.String(),
  name: Type.String(),
  status: Statuses,
  errorGroupIds: Type.Array(Type.String()),
  startedAt: Type.String(),
  stoppedAt: Nullable(Type.String()),
  timeElapsed: Type.Number(),
  results: Type.Optional(Type.Array(TestSessionResult)),
  sequenceIds: Type.Optional(Type.Record(Type.String(), Type.String())),
})

const ResultIds = Type.Array(Uuid, {
  description: "The session's results (`testSessionResultId`) in this status.",
})
const NotRecorded = Type.Null({ description: 'svc records no commit or user for a session.' })

/** The hosted list entry, with svc's `testSessionId`, `testSessionLink` and `timeElapsed` beside it. */
export const TestSessionListEntry = Type.Object({
  id: Uuid,
  accountId: Uuid,
  projectId: Type.Null(),
  name: Type.String(),
  provider: Type.String({ description: '`TRIGGER` (`POST /v1/test-sessions/trigger`) or `API` (a run).' }),
  errorGroupIds: Type.Array(Type.String()),
  running: ResultIds,
  passed: ResultIds,
  failed: ResultIds,
  cancelled: ResultIds,
  status: Statuses,
  region: Type.String({ description: 'The location it ran in (the first, when several).' }),
  privateLocationId: Nullable(Uuid),
  invoker: NotRecorded,
  repoUrl: NotRecorded,
  commitId: NotRecorded,
  commitOwner: NotRecorded,
  commitMessage: NotRecorded,
  branchName: NotRecorded,
  environment: NotRecorded,
  startedAt: Type.String(),
  stoppedAt: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Nullable(Type.String()),
  testSessionId: Uuid,
  testSessionLink: Type.String(),
  timeElapsed: Type.Number(),
})

export const TestSessionList = Type.Object({
  length: Type.Integer(),
  entries: Type.Array(TestSessionListEntry),
  nextId: Nullable(Type.String()),
})

export const AssetManifest = Type.Object({
  assets: Type.Array(
    Type.Object({
      type: Type.String(),
      name: Type.String(),
      url: Type.String(),
      size: Type.Optional(Type.Number()),
    }),
  ),
})
