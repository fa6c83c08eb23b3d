import { AlertChannelBody, CHECK_BODIES, CHECK_TYPES, type CheckType } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { badRequest, HttpError } from '../../http/errors.ts'
import { compileValidator } from '../../http/validation.ts'
import * as channels from '../alert-channels/alert-channels.service.ts'
import { CheckGroupBody } from '../check-groups/check-groups.schemas.ts'
import * as groups from '../check-groups/check-groups.service.ts'
import * as checks from '../checks/checks.service.ts'

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
  update(ctx: ServiceContext, accountId: string, physicalId: string, prepared: Prepared): Promise<void>
  remove(ctx: ServiceContext, accountId: string, physicalId: string): Promise<void>
  exists(ctx: ServiceContext, accountId: string, physicalId: string): Promise<boolean>
}

export interface Prepared {
  body: Record<string, unknown>
  /** The top-level fields the payload set, before defaults (a check in a group inherits the others). */
  sentFields: Set<string>
  checkType?: CheckType
}

/** The physical id of the resource the project deploys as `logicalId`; a 400 naming `path` if none. */
export type RefResolver = (ref: unknown, path: string) => string | null

const checkValidators = Object.fromEntries(
  CHECK_TYPES.map((type) => [type, compileValidator(CHECK_BODIES[type])]),
) as Record<CheckType, ReturnType<typeof compileValidator>>
const validateGroup = compileValidator(CheckGroupBody)
const validateChannel = compileValidator(AlertChannelBody)

/** The hosted CLI's name of the AUTOMATION type. */
const CHECK_TYPE_ALIASES: Record<string, CheckType> = { PLAYWRIGHT: 'AUTOMATION' }

const check: ResourceType = {
  order: 2,
  bodyOf(payload, refs, path) {
    const checkType = CHECK_TYPE_ALIASES[String(payload.checkType)] ?? (payload.checkType as CheckType)
    if (!CHECK_TYPES.includes(checkType)) {
      throw badRequest(`${path}.checkType must be one of ${CHECK_TYPES.join(', ')}`)
    }
    const schema = CHECK_BODIES[checkType] as { properties: Record<string, unknown> }
    const body = knownFields(payload, schema.properties, ['checkType'])
    if (isRef(payload.groupId)) body.groupId = numberOf(refs(payload.groupId, `${path}.groupId`))
    const trigger = payload.triggerIncident as Record<string, unknown> | undefined
    if (trigger && isRef(trigger.serviceId)) {
      body.triggerIncident = {
        ...trigger,
        serviceId: refs(trigger.serviceId, `${path}.triggerIncident.serviceId`),
      }
    }
    // The hosted CLI always sends a URL monitor's method; svc's URL checks are GET only.
    const request = body.request as Record<string, unknown> | undefined
    if (checkType === 'URL' && request?.method === 'GET') body.request = withoutKey(request, 'method')
    const sentFields = new Set(Object.keys(body))
    throwIf(checkValidators[checkType](body, path))
    return { body, sentFields, checkType }
  },
  async create(ctx, accountId, { body, sentFields, checkType }) {
    const created = await checks.createCheck(ctx, accountId, checkType as CheckType, body, {
      sentFields,
      autoAssignAlerts: false,
    })
    return String(created.id)
  },
  async update(ctx, accountId, id, { body, sentFields, checkType }) {
    await checks.updateCheck(ctx, accountId, id, body, { mode: 'replace', checkType, sentFields })
  },
  remove: (ctx, accountId, id) => checks.deleteCheck(ctx, accountId, id),
  exists: (ctx, accountId, id) => found(() => checks.getCheck(ctx, accountId, id)),
}

const checkGroup: ResourceType = {
  order: 0,
  bodyOf(payload, _refs, path) {
    // `v` is the hosted CLI's version of its group construct.
    const body = knownFields(payload, CheckGroupBody.properties, ['v'])
    const sentFields = new Set(Object.keys(body))
    throwIf(validateGroup(body, path))
    return { body, sentFields }
  },
  async create(ctx, accountId, { body }) {
    return String((await groups.createGroup(ctx, accountId, body as CheckGroupBody)).id)
  },
  async update(ctx, accountId, id, { body }) {
    await groups.updateGroup(ctx, accountId, Number(id), body as CheckGroupBody)
  },
  remove: (ctx, accountId, id) => groups.deleteGroup(ctx, accountId, Number(id)),
  exists: (ctx, accountId, id) => found(() => groups.getGroup(ctx, accountId, Number(id))),
}

const alertChannel: ResourceType = {
  order: 1,
  bodyOf(payload, _refs, path) {
    const body = knownFields(payload, AlertChannelBody.properties, [])
    const sentFields = new Set(Object.keys(body))
    throwIf(validateChannel(body, path))
    return { body, sentFields }
  },
  async create(ctx, accountId, { body }) {
    return String((await channels.createChannel(ctx, accountId, body as AlertChannelBody)).id)
  },
  async update(ctx, accountId, id, { body }) {
    await channels.updateChannel(ctx, accountId, Number(id), body as AlertChannelBody)
  },
  remove: (ctx, accountId, id) => channels.deleteChannel(ctx, accountId, Number(id)),
  exists: (ctx, accountId, id) => found(() => channels.getChannel(ctx, accountId, Number(id))),
}

/**
 * A channel's subscription of a check or group. Its physical id is `channel:check:<id>` or
 * `channel:group:<id>`; leaving the project deactivates it (the check's own deletion removes it).
 */
const alertChannelSubscription: ResourceType = {
  order: 3,
  bodyOf(payload, refs, path) {
    const channelId = refs(payload.alertChannelId, `${path}.alertChannelId`)
    const checkId = payload.checkId == null ? null : refs(payload.checkId, `${path}.checkId`)
    const groupId = payload.groupId == null ? null : refs(payload.groupId, `${path}.groupId`)
    if ((checkId === null) === (groupId === null)) {
      throw badRequest(`${path} must name exactly one of checkId and groupId`)
    }
    const body = { channelId, checkId, groupId, activated: payload.activated !== false }
    return { body, sentFields: new Set(Object.keys(body)) }
  },
  async create(ctx, accountId, prepared) {
    await alertChannelSubscription.update(ctx, accountId, '', prepared)
    const { channelId, checkId, groupId } = prepared.body
    return checkId === null ? `${channelId}:group:${groupId}` : `${channelId}:check:${checkId}`
  },
  async update(ctx, accountId, _id, { body }) {
    await channels.updateSubscription(ctx, accountId, Number(body.channelId), {
      ...(body.checkId === null ? { groupId: Number(body.groupId) } : { checkId: String(body.checkId) }),
      activated: body.activated as boolean,
    })
  },
  async remove(ctx, accountId, id) {
    const [channelId, kind, subscriber] = id.split(':')
    if (!(await alertChannel.exists(ctx, accountId, String(channelId)))) return
    const exists = kind === 'check' ? check.exists : checkGroup.exists
    if (!(await exists(ctx, accountId, String(subscriber)))) return
    await channels.updateSubscription(ctx, accountId, Number(channelId), {
      ...(kind === 'group' ? { groupId: Number(subscriber) } : { checkId: String(subscriber) }),
      activated: false,
    })
  },
  async exists(ctx, accountId, id) {
    const [channelId, kind, subscriber] = id.split(':')
    const exists = kind === 'check' ? check.exists : checkGroup.exists
    return (
      (await alertChannel.exists(ctx, accountId, String(channelId))) &&
      exists(ctx, accountId, String(subscriber))
    )
  },
}

/** Every type a project can deploy today, by the hosted CLI's names. */
export const RESOURCE_TYPES: Record<string, ResourceType> = {
  'check-group': checkGroup,
  'alert-channel': alertChannel,
  check,
  'alert-channel-subscription': alertChannelSubscription,
}

export function isRef(value: unknown): value is { ref: string } {
  return typeof value === 'object' && value !== null && typeof (value as { ref?: unknown }).ref === 'string'
}

/**
 * The payload's fields that svc's body has. A field svc doesn't know is dropped when it says nothing
 * (null, false, empty), as the hosted CLI sends many such defaults; one that says something stays, and
 * validation names it.
 */
function knownFields(payload: Record<string, unknown>, properties: Record<string, unknown>, drop: string[]) {
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

function withoutKey(object: Record<string, unknown>, key: string) {
  const { [key]: _dropped, ...rest } = object
  return rest
}

function numberOf(id: string | null): number | null {
  return id === null ? null : Number(id)
}

function throwIf(error: HttpError | undefined): void {
  if (error) throw error
}

async function found(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read()
    return true
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 404) return false
    throw error
  }
}
