import { Nullable, PageQuery, StrictObject, UnixSeconds } from '@svc/core'
import { type Static, Type } from 'typebox'

export const MAX_WINDOW_SECONDS = 6 * 3600

export const CheckAlertsQuery = StrictObject({
  ...PageQuery,
  from: Type.Optional(UnixSeconds({ description: 'Unix seconds (>=); default `to` minus 6 hours.' })),
  to: Type.Optional(UnixSeconds({ description: 'Unix seconds (<); default `from` plus 6 hours, or now.' })),
})
export type CheckAlertsQuery = Static<typeof CheckAlertsQuery>

export const CheckAlertsParams = StrictObject({ checkId: Type.String({ format: 'uuid' }) })

/** The hosted product's alert record. */
export const CheckAlert = Type.Object(
  {
    id: Type.String({ description: 'The alert’s first notification.' }),
    name: Type.String({ description: 'The check’s name when the alert was sent.' }),
    checkId: Type.String(),
    alertType: Type.String(),
    checkType: Type.String(),
    runLocation: Type.String(),
    responseTime: Type.Optional(Type.Number()),
    error: Nullable(Type.String()),
    statusCode: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    startedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { title: 'CheckAlert' },
)
export type CheckAlert = Static<typeof CheckAlert>
