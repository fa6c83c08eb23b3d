import {
  INCIDENT_SEVERITIES,
  INCIDENT_STATUSES,
  Name,
  Nullable,
  StrictObject,
  StringEnum,
  Uuid,
} from '@svc/core'
import { type Static, Type } from 'typebox'
import { Service } from '../status-page-services/status-page-services.schemas.ts'
import { Incident, IncidentUpdate, IncidentUpdateBody } from './incidents.schemas.ts'

/** Fields of the hosted bodies that a client sends back from a read; svc keeps its own. */
const ReadOnly = {
  id: Type.Optional(Type.String({ maxLength: 64, description: 'Ignored.' })),
  created_at: Type.Optional(Type.String({ maxLength: 64, description: 'Ignored.' })),
  updated_at: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'Ignored.' }))),
}

/** An incident update in the hosted form: only `description` is required. */
export const HostedUpdateBody = StrictObject({
  ...ReadOnly,
  description: IncidentUpdateBody.properties.description,
  status: Type.Optional(
    StringEnum(INCIDENT_STATUSES, {
      description: 'Left out: INVESTIGATING on a new incident, else the incident’s current status.',
    }),
  ),
  publicIncidentUpdateDate: IncidentUpdateBody.properties.publicIncidentUpdateDate,
  notifySubscribers: IncidentUpdateBody.properties.notifySubscribers,
})
export type HostedUpdateBody = Static<typeof HostedUpdateBody>

const ServiceRef = StrictObject({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'A service shown on the status page.' }),
  name: Type.Optional(Type.String({ maxLength: 255, description: 'Ignored.' })),
  accountId: Type.Optional(Type.String({ maxLength: 64, description: 'Ignored.' })),
  created_at: ReadOnly.created_at,
  updated_at: ReadOnly.updated_at,
})

const Common = {
  ...ReadOnly,
  lastUpdateStatus: Type.Optional(StringEnum(INCIDENT_STATUSES, { description: 'Ignored: updates set it.' })),
  duration: Type.Optional(Nullable(Type.Integer({ description: 'Ignored: updates set it.' }))),
  name: Name({ maxLength: 255 }),
  severity: StringEnum(INCIDENT_SEVERITIES),
  services: Type.Array(ServiceRef, {
    minItems: 1,
    maxItems: 100,
    description:
      'The services the incident impacts; each takes the status its severity implies (CRITICAL: ' +
      'MAJOR_OUTAGE, MAJOR: PARTIAL_OUTAGE, MEDIUM and MINOR: DEGRADED_PERFORMANCE).',
  }),
}

export const HostedIncidentBody = StrictObject(Common)
export type HostedIncidentBody = Static<typeof HostedIncidentBody>

export const HostedCreateIncidentBody = StrictObject({
  ...Common,
  statusPageId: Type.Optional(
    Uuid({
      description:
        'svc: the page to post the incident on. Left out: the oldest page of the account that shows ' +
        'every listed service.',
    }),
  ),
  incidentUpdates: Type.Array(HostedUpdateBody, { minItems: 1, maxItems: 100 }),
})
export type HostedCreateIncidentBody = Static<typeof HostedCreateIncidentBody>

export const HostedIncident = Type.Object(
  {
    ...Incident.properties,
    severity: StringEnum(INCIDENT_SEVERITIES, {
      description: 'MINOR for an incident made without one (the hosted form always has one).',
    }),
    services: Type.Array(Service, { description: 'The services the incident impacts (or did).' }),
  },
  { title: 'HostedIncident' },
)
export type HostedIncident = Static<typeof HostedIncident>

export { IncidentUpdate }

export const HostedIncidentParams = StrictObject({ incidentId: Type.String({ minLength: 1, maxLength: 64 }) })
export const HostedIncidentUpdateParams = StrictObject({
  incidentId: Type.String({ minLength: 1, maxLength: 64 }),
  incidentUpdateId: Type.String({ minLength: 1, maxLength: 64 }),
})
