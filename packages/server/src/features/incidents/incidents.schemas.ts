import {
  COMPONENT_STATUSES,
  DateTime,
  INCIDENT_SEVERITIES,
  INCIDENT_STATUSES,
  Name,
  Nullable,
  PageQuery,
  StrictObject,
  StringEnum,
  Uuid,
} from '@svc/core'
import { type Static, Type } from 'typebox'

export const IncidentUpdateBody = StrictObject({
  description: Type.String({ minLength: 1, maxLength: 10_000 }),
  status: StringEnum(INCIDENT_STATUSES),
  publicIncidentUpdateDate: Type.Optional(
    DateTime({
      description:
        'When the update is shown as posted; default now (on edit: unchanged). May be backdated; the ' +
        'earliest update sets the incident start. At most 5 minutes ahead, not before 2000-01-01.',
    }),
  ),
  notifySubscribers: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Emails every confirmed subscriber of the page, once per update.',
    }),
  ),
})
export type IncidentUpdateBody = Static<typeof IncidentUpdateBody>

/**
 * An edit needs only `description`, as the hosted API's does: a left-out status or notifySubscribers
 * stays as it was (no default fills it in).
 */
export const EditIncidentUpdateBody = StrictObject({
  ...IncidentUpdateBody.properties,
  status: Type.Optional(IncidentUpdateBody.properties.status),
  notifySubscribers: Type.Optional(
    Type.Boolean({
      description:
        'Left out: unchanged. Switched on, emails every confirmed subscriber who did not get this update yet.',
    }),
  ),
})
export type EditIncidentUpdateBody = Static<typeof EditIncidentUpdateBody>

export const ComponentImpactBody = StrictObject({
  componentId: Uuid({ description: 'A service shown on the status page.' }),
  status: StringEnum(COMPONENT_STATUSES),
})

const ComponentImpacts = Type.Array(ComponentImpactBody, {
  maxItems: 100,
  description:
    'The current status of each impacted component; components left out are OPERATIONAL (their open ' +
    'impact ends).',
})

export const CreateIncidentBody = StrictObject({
  name: Name({ maxLength: 255 }),
  severity: Type.Optional(StringEnum(INCIDENT_SEVERITIES)),
  componentImpacts: Type.Optional(ComponentImpacts),
  incidentUpdates: Type.Array(IncidentUpdateBody, { minItems: 1, maxItems: 100 }),
})
export type CreateIncidentBody = Static<typeof CreateIncidentBody>

export const UpdateIncidentBody = StrictObject({
  name: Name({ maxLength: 255 }),
  severity: Type.Optional(StringEnum(INCIDENT_SEVERITIES)),
  componentImpacts: Type.Optional(ComponentImpacts),
})
export type UpdateIncidentBody = Static<typeof UpdateIncidentBody>

export const IncidentUpdate = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    incidentId: Type.String({ format: 'uuid' }),
    description: Type.String(),
    status: StringEnum(INCIDENT_STATUSES),
    publicIncidentUpdateDate: Type.String({ format: 'date-time' }),
    notifySubscribers: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'IncidentUpdate' },
)
export type IncidentUpdate = Static<typeof IncidentUpdate>

export const ComponentImpact = Type.Object(
  {
    componentId: Type.String({ format: 'uuid' }),
    status: StringEnum(COMPONENT_STATUSES),
    startedAt: Type.String({ format: 'date-time' }),
    endedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'ComponentImpact' },
)

export const Incident = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    statusPageId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    severity: Nullable(StringEnum(INCIDENT_SEVERITIES)),
    lastUpdateStatus: StringEnum(INCIDENT_STATUSES, {
      description: 'The status of the latest update by publicIncidentUpdateDate.',
    }),
    duration: Nullable(
      Type.Integer({
        description: 'Seconds from the first update to the resolving one; null while ongoing.',
      }),
    ),
    startedAt: Type.String({ format: 'date-time', description: 'The earliest update’s date.' }),
    resolvedAt: Nullable(Type.String({ format: 'date-time' })),
    componentImpacts: Type.Array(ComponentImpact),
    incidentUpdates: Type.Array(IncidentUpdate, { description: 'Oldest first.' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Incident' },
)
export type Incident = Static<typeof Incident>

export const PageIncidentParams = StrictObject({ statusPageId: Uuid(), incidentId: Uuid() })
export const IncidentParams = StrictObject({ incidentId: Type.String({ minLength: 1, maxLength: 64 }) })
export const IncidentUpdateParams = StrictObject({
  incidentId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64 }),
})
export const ListIncidentsQuery = StrictObject(PageQuery)
