import { DateTime, Name, Nullable, PageQuery, SerialId, StrictObject, StringEnum } from '@svc/core'
import { type Static, Type } from 'typebox'

/** The hosted API's `/v1/incidents`: incidents of a dashboard, told in updates. */

export const DASHBOARD_INCIDENT_IMPACTS = ['MINOR', 'MAJOR', 'MAINTENANCE'] as const
export const DASHBOARD_INCIDENT_STATUSES = [
  'INVESTIGATING',
  'IDENTIFIED',
  'MONITORING',
  'RESOLVED',
  'MAINTENANCE',
] as const

const Impact = StringEnum(DASHBOARD_INCIDENT_IMPACTS)
const Period = {
  startedAt: Type.Optional(Nullable(DateTime({ description: 'Default: when the incident is posted.' }))),
  stoppedAt: Type.Optional(Nullable(DateTime({ description: 'Set: the incident is over at that time.' }))),
}

export const DashboardIncidentUpdateBody = StrictObject({
  status: StringEnum(DASHBOARD_INCIDENT_STATUSES),
  // The hosted example sends a status alone, so a missing description is an empty one.
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
})
export type DashboardIncidentUpdateBody = Static<typeof DashboardIncidentUpdateBody>

export const DashboardIncidentCreateBody = StrictObject({
  name: Name({ maxLength: 255 }),
  impact: Impact,
  ...Period,
  dashboardId: SerialId({ description: 'The dashboard’s numeric `id`.' }),
  incidentUpdates: Type.Array(DashboardIncidentUpdateBody, { minItems: 1, maxItems: 50 }),
})
export type DashboardIncidentCreateBody = Static<typeof DashboardIncidentCreateBody>

export const DashboardIncidentEditBody = StrictObject({
  name: Name({ maxLength: 255 }),
  impact: Impact,
  ...Period,
})
export type DashboardIncidentEditBody = Static<typeof DashboardIncidentEditBody>

export const DashboardIncidentUpdate = Type.Object({
  id: Type.String({ format: 'uuid' }),
  incidentId: Type.String({ format: 'uuid' }),
  status: Type.String(),
  description: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
})
export type DashboardIncidentUpdate = Static<typeof DashboardIncidentUpdate>

const incidentFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  impact: Type.String(),
  startedAt: Nullable(Type.String({ format: 'date-time' })),
  stoppedAt: Nullable(Type.String({ format: 'date-time' })),
  dashboardId: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
}

export const DashboardIncident = Type.Object(
  { ...incidentFields, incidentUpdates: Type.Array(DashboardIncidentUpdate) },
  { title: 'DashboardIncident' },
)
export type DashboardIncident = Static<typeof DashboardIncident>

/** The hosted update answer carries no updates. */
export const EditedDashboardIncident = Type.Object(incidentFields, { title: 'EditedDashboardIncident' })

export const DashboardIncidentParams = StrictObject({ id: Type.String({ format: 'uuid' }) })

export const GetDashboardIncidentQuery = StrictObject({
  includeAllIncidentUpdates: Type.Optional(
    Type.Boolean({ description: 'true: every update, oldest first; else the latest alone.' }),
  ),
})

export const EditDashboardIncidentQuery = StrictObject({
  probe: Type.Optional(
    Type.Boolean({ description: 'true: checks and answers the change without saving it.' }),
  ),
})

/** An svc addition: the hosted API reads incidents one by one only. */
export const ListDashboardIncidentsQuery = StrictObject({
  dashboardId: Type.Optional(
    SerialId({ description: 'The dashboard’s numeric `id`; left out, every dashboard’s of the account.' }),
  ),
  ...PageQuery,
})
