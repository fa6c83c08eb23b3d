import { Nullable, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'

const LogicalId = Type.String({ minLength: 1, maxLength: 255 })

export const ProjectInput = StrictObject({
  logicalId: LogicalId,
  name: Type.String({ minLength: 1, maxLength: 255 }),
  repoUrl: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
})

/** The hosted product's CLI payload (its constructs' `synthesize()`), which is svc's own format too. */
export const DeployBody = StrictObject({
  project: ProjectInput,
  resources: Type.Array(
    Type.Object(
      {
        logicalId: LogicalId,
        type: Type.String({ minLength: 1, maxLength: 64 }),
        physicalId: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()])),
        member: Type.Optional(Type.Boolean()),
        payload: Type.Optional(Type.Unknown()),
        sourceFile: Type.Optional(Type.String({ maxLength: 2048 })),
      },
      // The hosted CLI adds fields of its own to a resource (e.g. a construct's source file).
      { additionalProperties: true },
    ),
    { maxItems: 10_000 },
  ),
  repoInfo: Type.Optional(Type.Unknown()),
  sharedFiles: Type.Optional(Type.Unknown()),
})
export type DeployBody = Static<typeof DeployBody>

export const DeployQuery = StrictObject({
  dryRun: Type.Optional(
    Type.Boolean({ default: false, description: 'Answer the diff without applying it.' }),
  ),
  scheduleOnDeploy: Type.Optional(
    Type.Boolean({ default: true, description: 'Run the checks the deploy creates once, right after it.' }),
  ),
  preserveResources: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Resources that left the project are detached (kept, no longer managed) instead of deleted.',
    }),
  ),
})

export const DiffEntry = Type.Object({
  type: Type.String(),
  logicalId: Type.String(),
  physicalId: Type.Union([Type.String(), Type.Integer(), Type.Null()]),
  action: StringEnum(['CREATE', 'UPDATE', 'DELETE', 'DETACHED', 'UNCHANGED'] as const),
  changes: Type.Optional(
    Type.Array(Type.String(), { description: 'The top-level fields an update changes.' }),
  ),
})

export const Diff = Type.Object({ diff: Type.Array(DiffEntry) })

export const Deployment = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    projectLogicalId: Type.String(),
    kind: StringEnum(['DEPLOY', 'DELETE'] as const),
    status: StringEnum(['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const),
    progress: Type.Integer({ minimum: 0, maximum: 100 }),
    result: Nullable(Diff),
    error: Nullable(
      Type.Object({
        message: Type.String(),
        attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    finishedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Deployment' },
)

export const Project = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    logicalId: Type.String(),
    name: Type.String(),
    repoUrl: Nullable(Type.String()),
    resources: Type.Integer({ description: 'How many resources the project manages.' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Project' },
)

export const ProjectParams = StrictObject({ logicalId: LogicalId })
export const DeploymentParams = StrictObject({
  logicalId: LogicalId,
  deploymentId: Type.String({ format: 'uuid' }),
})
export const CompletionQuery = StrictObject({
  maxWaitSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 60, default: 30 })),
})
export const DeleteProjectQuery = StrictObject({
  preserveResources: Type.Optional(Type.Boolean({ default: false })),
  dryRun: Type.Optional(Type.Boolean({ default: false })),
})
