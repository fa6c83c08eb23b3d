import { CHECK_TYPES, Nullable, PageQuery, StrictObject, StringEnum, UnixSeconds } from '@svc/core'
import { type Static, Type } from 'typebox'

export const CheckResult = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    checkId: Type.String({ format: 'uuid' }),
    checkType: Type.String(),
    runLocation: Type.String(),
    startedAt: Type.String({ format: 'date-time' }),
    stoppedAt: Type.String({ format: 'date-time' }),
    responseTime: Type.Number(),
    hasFailures: Type.Boolean(),
    hasErrors: Type.Boolean(),
    isDegraded: Type.Boolean(),
    overMaxResponseTime: Type.Boolean(),
    isCancelled: Type.Boolean({
      description:
        'The run (a Playwright check suite) was cancelled while in flight (POST /v1/checks/{id}/cancel): ' +
        'neither passing nor failing, it raises no alert and counts for no status or analytics.',
    }),
    detailOmitted: Type.Optional(
      Type.Boolean({
        description:
          "Present (true) on a passing URL or API result stored without its full detail. svc stores a passing result's " +
          'request, response (headers, body) and assertions only when they differ from those of the last result ' +
          'kept in full for its check and location (apart from timings and the `date` header), and keeps one in ' +
          'full at least every hour per check and location; the others keep their own timings and certificate. ' +
          'Such a result shows the request, response and assertions of that kept result (`detailCopiedFrom`, ' +
          'without its `date` header), or only `timingPhases` and `tls` once that result is gone. Failing, ' +
          'degraded and erroring results, and results of other check types, always keep their full detail.',
      }),
    ),
    detailCopiedFrom: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'With `detailOmitted`: the id of the result kept in full whose request, response and assertions this one shows.',
      }),
    ),
    attempts: Type.Integer(),
    resultType: StringEnum(['FINAL', 'ATTEMPT'] as const),
    error: Nullable(Type.Object({ type: Type.String(), message: Type.String() })),
    traceId: Nullable(
      Type.String({ description: 'Always null: svc records no distributed trace for a run.' }),
    ),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'CheckResult', additionalProperties: true },
)
export type CheckResult = Static<typeof CheckResult> & Record<string, unknown>

export const CheckResultsParams = StrictObject({ checkId: Type.String({ format: 'uuid' }) })
export const CheckResultParams = StrictObject({
  checkId: Type.String({ format: 'uuid' }),
  resultId: Type.String({ format: 'uuid' }),
})

/** The hosted product's check types besides svc's: results of those are none (svc has no such checks). */
const HOSTED_ONLY_TYPES = ['PLAYWRIGHT', 'AGENTIC', 'TRACEROUTE', 'GRPC'] as const

const resultFilters = {
  from: Type.Optional(UnixSeconds()),
  to: Type.Optional(UnixSeconds()),
  location: Type.Optional(Type.String({ maxLength: 64 })),
  hasFailures: Type.Optional(Type.Boolean()),
  resultType: Type.Optional(
    StringEnum(['FINAL', 'ATTEMPT', 'ALL'] as const, {
      description: 'ALL: both final results and attempts.',
    }),
  ),
  checkType: Type.Optional(
    StringEnum([...CHECK_TYPES, ...HOSTED_ONLY_TYPES], {
      description: 'Only results of this check type (PLAYWRIGHT is AUTOMATION): all of the check’s, or none.',
    }),
  ),
}

export const ListResultsQuery = StrictObject({ ...PageQuery, ...resultFilters })
export type ListResultsQuery = Static<typeof ListResultsQuery>

/** The fields of a result `fields` may keep in a v2 list. */
export const RESULT_FIELDS = [
  ...Object.keys(CheckResult.properties),
  'name',
  'createdAt',
  'apiCheckResult',
  'browserCheckResult',
  'multiStepCheckResult',
  'playwrightCheckResult',
  'sslCheckResult',
  'checkRunId',
  'sequenceId',
  'errorGroupIds',
  'agenticCheckResult',
  'tracerouteCheckResult',
  'grpcCheckResult',
]

export const ListResultsV2Query = StrictObject({
  limit: PageQuery.limit,
  nextId: Type.Optional(
    Type.String({ maxLength: 200, description: 'The `nextId` of the previous page: the page after it.' }),
  ),
  fields: Type.Optional(
    Type.Array(StringEnum([...new Set(RESULT_FIELDS)]), {
      maxItems: 100,
      description:
        'Only these fields of each result (the parameter repeated, or fields separated by commas).',
    }),
  ),
  ...resultFilters,
})
export type ListResultsV2Query = Static<typeof ListResultsV2Query>

export const CheckResultPageV2 = Type.Object(
  {
    length: Type.Integer({ description: 'Results on this page.' }),
    entries: Type.Array(
      Type.Partial(
        Type.Object(
          { ...CheckResult.properties, createdAt: Type.String({ format: 'date-time' }) },
          { additionalProperties: true },
        ),
        { additionalProperties: true, description: 'A result; with `fields`, only the fields named.' },
      ),
    ),
    nextId: Nullable(Type.String({ description: 'Pass as `nextId` for the next page; null on the last.' })),
  },
  { title: 'CheckResultPageV2' },
)
