import { Nullable, PageQuery, StrictObject, StringEnum, UnixSeconds } from '@svc/core'
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

export const ListResultsQuery = StrictObject({
  ...PageQuery,
  from: Type.Optional(UnixSeconds()),
  to: Type.Optional(UnixSeconds()),
  location: Type.Optional(Type.String({ maxLength: 64 })),
  hasFailures: Type.Optional(Type.Boolean()),
  resultType: Type.Optional(StringEnum(['FINAL', 'ATTEMPT'] as const)),
})
export type ListResultsQuery = Static<typeof ListResultsQuery>
