import { badRequest } from '../../http/errors.ts'

/**
 * What the hosted product's CLI (`checkly test`, `checkly trigger`) sends beside svc's own fields: a run
 * location as an object, and the id of its "check run suite", which names the topics it follows the
 * results on (see `live-results/`). svc makes that id the session's id, so a subscriber waiting on the
 * topics finds the session by it, on any node.
 */

/** A location by name (svc's CLI and API), or as the hosted CLI sends one. */
export type RunLocation = string | { type: 'PUBLIC'; region: string } | { type: 'PRIVATE'; slugName?: string }

export const MAX_SOURCE_FILE_LENGTH = 1024

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The data-center location a run location names; a private one is a 400 (sessions run in data centers). */
export function locationNamed(location: RunLocation, path: string): string {
  if (typeof location === 'string') return location
  if (location.type === 'PUBLIC') return location.region
  throw badRequest(
    `${path}: test sessions run in this install's data-center locations, not in private location ` +
      `${location.slugName ?? ''}: pass --location with one of GET /v1/locations`,
  )
}

/** The suite id the hosted CLI put in each job's `sourceInfo`, when it sent one. */
export function suiteIdOf(jobs: Record<string, unknown>[]): string | undefined {
  const sourceInfo = jobs[0]?.sourceInfo as { checkRunSuiteId?: unknown } | undefined
  const id = sourceInfo?.checkRunSuiteId
  return typeof id === 'string' && UUID.test(id) ? id.toLowerCase() : undefined
}
