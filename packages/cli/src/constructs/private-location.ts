import { PrivateLocationBody } from '@svc/core'
import { type Construct, isConstructOf, PlainConstruct, type Resource } from './construct.ts'

/** A location served by the account's own agents; checks and groups name it in `privateLocations`. */
export class PrivateLocation extends PlainConstruct<PrivateLocationBody> {
  constructor(logicalId: string, props: PrivateLocationBody) {
    super('private-location', logicalId, props, PrivateLocationBody)
  }
}

function isPrivateLocation(location: unknown): location is PrivateLocation {
  return isConstructOf(location, 'private-location')
}

/** A check's or group's private locations: slugs of existing ones as they are, constructs by reference. */
export type PrivateLocations = (string | PrivateLocation)[]

/**
 * The slugs the schema checks (a construct's own slug stands in for it) and one assignment resource per
 * construct, named as the hosted product's CLI names them; the server adds their slugs to the check's.
 */
export function splitPrivateLocations(
  owner: Construct,
  field: 'checkId' | 'groupId',
  locations: PrivateLocations | undefined,
): { slugs: string[] | undefined; assignments: Resource[] } {
  if (!Array.isArray(locations)) return { slugs: locations, assignments: [] }
  const kind = field === 'checkId' ? 'check' : 'group'
  const constructs = locations.filter(isPrivateLocation)
  return {
    slugs: locations.filter((location) => !isPrivateLocation(location)) as string[],
    assignments: constructs.map((location) => ({
      logicalId: `private-location-${kind}-assignment#${owner.logicalId}#${location.logicalId}`,
      type: `private-location-${kind}-assignment`,
      member: true,
      payload: { privateLocationId: location.ref(), [field]: owner.ref() },
    })),
  }
}

/** For validation: every location as a slug (a construct's own slug, or a placeholder the schema takes). */
export function privateLocationSlugs(locations: PrivateLocations | undefined): unknown {
  if (!Array.isArray(locations)) return locations
  return locations.map((location) =>
    isPrivateLocation(location) ? (location.props.slugName ?? 'private-location') : location,
  )
}
