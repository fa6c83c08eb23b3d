import type { ServiceContext } from '../../context.ts'
import { badRequest } from '../../http/errors.ts'
import * as locations from '../private-locations/private-locations.service.ts'
import { isRef, type ProjectPayload, type ResourceType } from './resource-helpers.ts'

/**
 * The hosted CLI assigns a check or group to a private location with a resource of its own
 * (`private-location-check-assignment`, `private-location-group-assignment`); svc keeps them in the
 * check's or group's `privateLocations`. So the assignments are folded into the payload of the check or
 * group they name before it is applied (adding or dropping one changes it), and the assignment resources
 * themselves only record the binding.
 */
const ASSIGNMENTS: Record<string, string> = {
  'private-location-check-assignment': 'checkId',
  'private-location-group-assignment': 'groupId',
}
const TARGET_TYPE: Record<string, string> = { checkId: 'check', groupId: 'check-group' }

/** The payload of each check or group with its assigned private locations' logicalIds. */
export function assignedLocations(payload: ProjectPayload): Map<string, string[]> {
  const assigned = new Map<string, string[]>()
  payload.resources.forEach((resource, index) => {
    const field = ASSIGNMENTS[resource.type]
    if (!field) return
    const body = (resource.payload ?? {}) as Record<string, unknown>
    const target = body[field]
    const location = body.privateLocationId
    if (!isRef(target) || !isRef(location)) {
      throw badRequest(`resources.${index}.payload must name ${field} and privateLocationId by reference`)
    }
    const key = `${TARGET_TYPE[field]}\u0000${target.ref}`
    assigned.set(key, [...(assigned.get(key) ?? []), location.ref])
  })
  return assigned
}

/**
 * `payload` of a check or group with the slugs of its assigned private locations added to its
 * `privateLocations` (a location deployed by the project has its slug in its payload; one it only refers
 * to is read).
 */
export async function withAssignedLocations(
  ctx: ServiceContext,
  accountId: string,
  project: ProjectPayload,
  resource: ProjectPayload['resources'][number],
  assigned: Map<string, string[]>,
  physicalIdOf: (logicalId: string) => string | undefined,
): Promise<unknown> {
  const logicalIds = assigned.get(`${resource.type}\u0000${resource.logicalId}`)
  if (!logicalIds) return resource.payload
  const slugs: string[] = []
  for (const logicalId of logicalIds) {
    const location = project.resources.find((r) => r.type === 'private-location' && r.logicalId === logicalId)
    const own =
      (location?.member !== false && (location?.payload as { slugName?: unknown })?.slugName) || null
    if (typeof own === 'string') slugs.push(own)
    else {
      const id = physicalIdOf(logicalId)
      if (!id)
        throw badRequest(
          `an assignment of ${resource.logicalId} refers to "${logicalId}", which this project doesn't deploy`,
        )
      slugs.push((await locations.getLocation(ctx, accountId, id)).slugName)
    }
  }
  const body = resource.payload as Record<string, unknown>
  const given = Array.isArray(body.privateLocations) ? (body.privateLocations as string[]) : []
  return { ...body, privateLocations: [...new Set([...given, ...slugs])].sort() }
}

/** The assignment resources: their effect is in the check or group they name. */
const assignment = (field: string): ResourceType => ({
  order: 5,
  bodyOf(payload, refs, path) {
    const body = {
      privateLocationId: refs(payload.privateLocationId, `${path}.privateLocationId`),
      [field]: refs(payload[field], `${path}.${field}`),
    }
    return { body, sentFields: new Set(Object.keys(body)) }
  },
  create: async (_ctx, _accountId, { body }) => `${body.privateLocationId}:${field}:${body[field]}`,
  update: async () => {},
  remove: async () => {},
  exists: async () => true,
})

export const ASSIGNMENT_RESOURCE_TYPES: Record<string, ResourceType> = {
  'private-location-check-assignment': assignment('checkId'),
  'private-location-group-assignment': assignment('groupId'),
}
