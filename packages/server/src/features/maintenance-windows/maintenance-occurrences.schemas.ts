import { DateOrDateTime, Nullable, PageQuery, SerialId, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'

export const OCCURRENCE_STATUSES = [
  'SCHEDULED',
  'IN_PROGRESS',
  'VERIFYING',
  'COMPLETED',
  'CANCELLED',
] as const
export type OccurrenceStatus = (typeof OCCURRENCE_STATUSES)[number]

const Instant = () => Type.String({ format: 'date-time' })

export const MaintenanceOccurrenceUpdate = Type.Object(
  {
    id: Type.String(),
    maintenanceWindowId: Type.Integer(),
    maintenanceId: Type.String(),
    status: StringEnum(OCCURRENCE_STATUSES),
    description: Type.String(),
    notifySubscribers: Type.Boolean(),
    created_at: Instant(),
    previousStatus: Nullable(Type.String()),
    previousStartsAt: Nullable(Instant()),
    previousEndsAt: Nullable(Instant()),
    dateAdjustments: Nullable(Type.Object({ startsAt: Instant(), endsAt: Instant() })),
  },
  { title: 'MaintenanceOccurrenceUpdate' },
)
export type MaintenanceOccurrenceUpdate = Static<typeof MaintenanceOccurrenceUpdate>

export const MaintenanceOccurrence = Type.Object(
  {
    id: Type.String({ description: "The occurrence's index in its window's schedule: 0 is the first." }),
    maintenanceWindowId: Type.Integer(),
    startsAt: Instant(),
    endsAt: Instant(),
    status: StringEnum(OCCURRENCE_STATUSES),
    created_at: Instant(),
    updated_at: Instant(),
    updates: Type.Array(MaintenanceOccurrenceUpdate),
  },
  { title: 'MaintenanceOccurrence' },
)
export type MaintenanceOccurrence = Static<typeof MaintenanceOccurrence>

const OccurrenceId = () => Type.String({ minLength: 1, maxLength: 64 })
export const OccurrenceParams = StrictObject({ id: SerialId(), maintenanceId: OccurrenceId() })
export const OccurrenceUpdateParams = StrictObject({
  id: SerialId(),
  maintenanceId: OccurrenceId(),
  updateId: Type.String({ minLength: 1, maxLength: 64 }),
})
export const ListOccurrencesQuery = StrictObject({
  ...PageQuery,
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Items per page, 1 to 50.' }),
  ),
})

export const MoveOccurrenceBody = StrictObject({
  startsAt: Type.Optional(DateOrDateTime()),
  endsAt: Type.Optional(DateOrDateTime()),
})
export type MoveOccurrenceBody = Static<typeof MoveOccurrenceBody>

export const OccurrenceUpdateBody = StrictObject({
  status: StringEnum(OCCURRENCE_STATUSES),
  description: Type.String({ maxLength: 2000 }),
  notifySubscribers: Type.Optional(Type.Boolean({ default: false })),
})
export type OccurrenceUpdateBody = Static<typeof OccurrenceUpdateBody>

export const OccurrenceUpdateEditBody = StrictObject({
  status: Type.Optional(StringEnum(OCCURRENCE_STATUSES)),
  description: Type.String({ maxLength: 2000 }),
})
export type OccurrenceUpdateEditBody = Static<typeof OccurrenceUpdateEditBody>
