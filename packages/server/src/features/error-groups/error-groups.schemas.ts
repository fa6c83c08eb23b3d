import { DateTime, Nullable, PageQuery, StrictObject } from '@svc/core'
import { type Static, Type } from 'typebox'

export const ErrorGroup = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    checkId: Type.String({ format: 'uuid' }),
    errorHash: Type.String({ description: 'SHA-256 of the error type and the cleaned message.' }),
    errorType: Nullable(Type.String()),
    rawErrorMessage: Nullable(Type.String({ description: 'The latest raw message.' })),
    cleanedErrorMessage: Type.String({
      description: 'The message with query strings, timestamps, ids, addresses and numbers taken out.',
    }),
    firstSeen: DateTime(),
    lastSeen: DateTime(),
    count: Type.Integer({ description: 'Failing final results in the group.' }),
    locations: Type.Array(Type.String(), { description: 'Every location the error was seen in.' }),
    failingLocations: Type.Array(Type.String(), {
      description: 'Locations whose latest final result still fails with this error.',
    }),
    sampleResultId: Nullable(Type.String({ format: 'uuid' })),
    sampleResult: Nullable(
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        runLocation: Type.String(),
        startedAt: DateTime(),
        responseTime: Type.Number(),
        statusCode: Nullable(Type.Integer()),
        error: Nullable(Type.Object({ type: Type.String(), message: Type.String() })),
      }),
    ),
    archived: Type.Boolean({ description: 'Resolved: no location fails with it any more.' }),
    archivedUntilNextEvent: Type.Boolean({
      description: 'The same as `archived`: a new failure reopens it.',
    }),
    resolvedAt: Nullable(DateTime()),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { title: 'ErrorGroup' },
)
export type ErrorGroup = Static<typeof ErrorGroup>

export const CheckIdParams = StrictObject({ checkId: Type.String({ format: 'uuid' }) })
export const ErrorGroupParams = StrictObject({ id: Type.String({ format: 'uuid' }) })
export const ListErrorGroupsQuery = StrictObject({
  ...PageQuery,
  archived: Type.Optional(Type.Boolean({ description: 'Only archived (resolved) or only open groups.' })),
})

export const ErrorGroupPatch = StrictObject({
  archivedUntilNextEvent: Type.Optional(
    Type.Boolean({ description: 'true archives the group until its error is seen again; false reopens it.' }),
  ),
  archiveForEver: Type.Optional(
    Type.Boolean({ description: 'Not served: true is a 400 (svc reopens a group when its error returns).' }),
  ),
})
