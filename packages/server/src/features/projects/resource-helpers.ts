import type { CheckType } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { HttpError } from '../../http/errors.ts'

/** A deploy's body: the hosted CLI's payload format, which is svc's own too. */
export interface ProjectPayload {
  project: { logicalId: string; name: string; repoUrl?: string | null }
  resources: {
    logicalId: string
    type: string
    physicalId?: string | number | null
    member?: boolean
    payload?: unknown
    sourceFile?: string
  }[]
}

/**
 * How a project's payload of one resource type becomes svc's own body, and how it is saved. Payloads are
 * the hosted product's CLI format (its constructs' `synthesize()`), which is also ours: references to
 * another resource of the project are `{ref: logicalId}`, resolved to the physical id deployed for it.
 */
export interface ResourceType {
  /** Its resources are applied after those of types listed earlier, and deleted before them. */
  order: number
  /** The svc body for `payload`, validated (defaults filled in), or a 400 naming `path`'s field. */
  bodyOf(payload: Record<string, unknown>, refs: RefResolver, path: string): Prepared
  create(ctx: ServiceContext, accountId: string, prepared: Prepared): Promise<string>
  /** Creates many at once (their physical ids in order): a first deploy creates hundreds of checks. */
  createMany?(ctx: ServiceContext, accountId: string, prepared: Prepared[]): Promise<string[]>
  update(ctx: ServiceContext, accountId: string, physicalId: string, prepared: Prepared): Promise<void>
  remove(ctx: ServiceContext, accountId: string, physicalId: string): Promise<void>
  exists(ctx: ServiceContext, accountId: string, physicalId: string): Promise<boolean>
  /**
   * Whether the resource deployed from `before` (its stored payload) can be updated to `prepared` in
   * place; when not, it is deleted and made anew. Default: always.
   */
  sameResource?(before: Record<string, unknown>, prepared: Prepared): boolean
  /** Which of `physicalIds` exist, in one query: a redeploy checks every resource it keeps. */
  existing?(ctx: ServiceContext, accountId: string, physicalIds: string[]): Promise<Set<string>>
}

export interface Prepared {
  body: Record<string, unknown>
  /** The top-level fields the payload set, before defaults (a check in a group inherits the others). */
  sentFields: Set<string>
  checkType?: CheckType
}

/** The physical id of the resource the project deploys as `logicalId`; a 400 naming `path` if none. */
export type RefResolver = (ref: unknown, path: string) => string | null

export function isRef(value: unknown): value is { ref: string } {
  return typeof value === 'object' && value !== null && typeof (value as { ref?: unknown }).ref === 'string'
}

/**
 * The payload's fields that svc's body has. A field svc doesn't know is dropped when it says nothing
 * (null, false, empty), as the hosted CLI sends many such defaults; one that says something stays, and
 * validation names it.
 */
export function knownFields(
  payload: Record<string, unknown>,
  properties: Record<string, unknown>,
  drop: string[],
) {
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(payload)) {
    if (drop.includes(key) || value === undefined) continue
    if (!(key in properties) && isEmpty(value)) continue
    body[key] = value
  }
  return body
}

/** Null, false, zero, empty, or an object of only such values (the hosted CLI's unset defaults). */
function isEmpty(value: unknown): boolean {
  if (value === null || value === false || value === '' || value === 0) return true
  if (Array.isArray(value)) return value.length === 0
  return typeof value === 'object' && Object.values(value as object).every(isEmpty)
}

export function withoutKey(object: Record<string, unknown>, key: string) {
  const { [key]: _dropped, ...rest } = object
  return rest
}

export function numberOf(id: string | null): number | null {
  return id === null ? null : Number(id)
}

export function throwIf(error: HttpError | undefined): void {
  if (error) throw error
}

export async function found(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read()
    return true
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 404) return false
    throw error
  }
}
