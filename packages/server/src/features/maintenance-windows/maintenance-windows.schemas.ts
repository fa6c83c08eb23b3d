import { MAINTENANCE_REPEAT_UNITS, Nullable, PageQuery, SerialId, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'

export const MaintenanceWindow = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    tags: Type.Array(Type.String()),
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: Type.String({ format: 'date-time' }),
    repeatUnit: Nullable(StringEnum(MAINTENANCE_REPEAT_UNITS)),
    repeatInterval: Nullable(Type.Integer()),
    repeatEndsAt: Nullable(Type.String({ format: 'date-time' })),
    timezone: Nullable(Type.String({ description: 'IANA time zone its occurrences repeat in; null: UTC.' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'MaintenanceWindow' },
)
export type MaintenanceWindow = Static<typeof MaintenanceWindow>

export const WindowIdParams = StrictObject({ id: SerialId() })
/** The hosted list's range filters, `startsAt[gte]=2026-01-01` and the like: a date (UTC midnight) or an instant. */
export const WINDOW_FILTER_FIELDS = ['startsAt', 'endsAt'] as const
export const WINDOW_FILTER_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const

const rangeFilters = Object.fromEntries(
  WINDOW_FILTER_FIELDS.flatMap((field) =>
    WINDOW_FILTER_OPERATORS.map((op) => [
      `${field}[${op}]`,
      Type.Optional(
        Type.String({
          anyOf: [{ format: 'date-time' }, { format: 'date' }],
          description: `Windows whose first ${field} is ${op} this date (UTC midnight) or instant.`,
        }),
      ),
    ]),
  ),
)

export const ListWindowsQuery = StrictObject({ ...PageQuery, ...rangeFilters })
