import { Nullable, PageQuery, PrivateLocationBody, StrictObject } from '@svc/core'
import { type Static, Type } from 'typebox'

export { PrivateLocationBody } from '@svc/core'

/**
 * An update needs only `name`, as the hosted API's does; the fields it leaves out keep their values (so the
 * icon has no default here: a left-out icon is kept, not reset).
 */
export const PrivateLocationUpdate = StrictObject({
  name: PrivateLocationBody.properties.name,
  slugName: Type.Optional(PrivateLocationBody.properties.slugName),
  icon: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  proxyUrl: PrivateLocationBody.properties.proxyUrl,
})
export type PrivateLocationUpdate = Static<typeof PrivateLocationUpdate>

const Timestamps = {
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}

/**
 * A private location key as listed: the full key is never shown again. The hosted read schema requires
 * `rawKey`, so it carries the masked form (issue 30).
 */
export const MaskedPrivateLocationKey = Type.Object(
  {
    id: Type.String(),
    rawKey: Type.String({
      description: 'The masked form, as `maskedKey`: the full key is shown only when created.',
    }),
    maskedKey: Type.String(),
    ...Timestamps,
  },
  { title: 'MaskedPrivateLocationKey' },
)

/** The spec's private location key, as its creation answers it: `rawKey` required, shown only here. */
export const PrivateLocationKey = Type.Object(
  {
    id: Type.String(),
    rawKey: Type.String({ description: 'The full key: shown only when it is created.' }),
    maskedKey: Type.String(),
    ...Timestamps,
  },
  { title: 'PrivateLocationKey' },
)

export const Agent = Type.Object(
  {
    id: Type.String(),
    version: Type.String(),
    hostname: Type.String(),
    runningJobs: Type.Integer(),
    startedAt: Type.String({ format: 'date-time' }),
    lastSeenAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Agent' },
)

export const PrivateLocation = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    slugName: Type.String(),
    icon: Type.String({ description: "The location's icon; `location` when it names none." }),
    proxyUrl: Type.Union([Type.String(), Type.Null()]),
    keys: Type.Array(MaskedPrivateLocationKey),
    agents: Type.Array(Agent, { description: 'Agents seen in the last 30 seconds.' }),
    healthy: Type.Boolean({ description: 'Whether an agent was seen in the last 30 seconds.' }),
    lastSeenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    ...Timestamps,
  },
  { title: 'PrivateLocation' },
)
export type PrivateLocation = Static<typeof PrivateLocation>

export const LocationIdParams = StrictObject({ id: Type.String({ format: 'uuid' }) })
export const KeyIdParams = StrictObject({
  id: Type.String({ format: 'uuid' }),
  keyId: Type.String({ format: 'uuid' }),
})
export const ListLocationsQuery = StrictObject({
  ...PageQuery,
  versions: Type.Optional(
    Type.Boolean({
      description: 'Accepted (the hosted API’s): each location always lists its agents’ versions.',
    }),
  ),
})
