import { AlertChannelBody, CHECK_BODIES, CHECK_TYPES, type CheckType } from '@svc/core'
import { badRequest } from '../../http/errors.ts'
import { compileValidator } from '../../http/validation.ts'
import * as channels from '../alert-channels/alert-channels.service.ts'
import { CheckGroupBody } from '../check-groups/check-groups.schemas.ts'
import * as groups from '../check-groups/check-groups.service.ts'
import { createChecks } from '../checks/check-creation.service.ts'
import * as checks from '../checks/checks.service.ts'
import { ASSIGNMENT_RESOURCE_TYPES } from './location-assignments.ts'
import {
  found,
  isRef,
  knownFields,
  numberOf,
  type ResourceType,
  throwIf,
  withoutKey,
} from './resource-helpers.ts'
import { SETTING_RESOURCE_TYPES } from './setting-resource-types.ts'

export {
  isRef,
  type Prepared,
  type ProjectPayload,
  type RefResolver,
  type ResourceType,
} from './resource-helpers.ts'

const checkValidators = Object.fromEntries(
  CHECK_TYPES.map((type) => [type, compileValidator(CHECK_BODIES[type])]),
) as Record<CheckType, ReturnType<typeof compileValidator>>
const validateGroup = compileValidator(CheckGroupBody)
const validateChannel = compileValidator(AlertChannelBody)

/** The hosted CLI's name of the AUTOMATION type. */
const CHECK_TYPE_ALIASES: Record<string, CheckType> = { PLAYWRIGHT: 'AUTOMATION' }

const check: ResourceType = {
  order: 4,
  bodyOf(payload, refs, path) {
    const checkType = CHECK_TYPE_ALIASES[String(payload.checkType)] ?? (payload.checkType as CheckType)
    if (!CHECK_TYPES.includes(checkType)) {
      throw badRequest(`${path}.checkType must be one of ${CHECK_TYPES.join(', ')}`)
    }
    const schema = CHECK_BODIES[checkType] as { properties: Record<string, unknown> }
    // The hosted CLI sends an offset of 0 for a check it doesn't run every few seconds: it says nothing.
    const unset = payload.frequencyOffset === 0 ? ['frequencyOffset'] : []
    const body = knownFields(payload, schema.properties, ['checkType', ...unset])
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
    // The bulk path for one: a route's answer (channels, warnings, bindings) would go unread.
    const newCheck = { checkType: checkType as CheckType, body, sentFields }
    const [id] = await createChecks(ctx, accountId, [newCheck], { autoAssignAlerts: false })
    return id as string
  },
  createMany(ctx, accountId, prepared) {
    const newChecks = prepared.map(({ body, sentFields, checkType }) => ({
      checkType: checkType as CheckType,
      body,
      sentFields,
    }))
    return createChecks(ctx, accountId, newChecks, { autoAssignAlerts: false })
  },
  async update(ctx, accountId, id, { body, sentFields, checkType }) {
    await checks.updateCheck(ctx, accountId, id, body, { mode: 'replace', checkType, sentFields })
  },
  remove: (ctx, accountId, id) => checks.deleteCheck(ctx, accountId, id),
  exists: (ctx, accountId, id) => found(() => checks.getCheck(ctx, accountId, id)),
  // svc can't change a check's type in place.
  sameResource: (before, prepared) =>
    (CHECK_TYPE_ALIASES[String(before.checkType)] ?? before.checkType) === prepared.checkType,
  async existing(ctx, accountId, ids) {
    return checks.existingCheckIds(ctx, accountId, ids)
  },
}

const checkGroup: ResourceType = {
  order: 2,
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
  async existing(ctx, accountId, ids) {
    return new Set((await groups.existingGroupIds(ctx, accountId, ids.map(Number))).map(String))
  },
}

const alertChannel: ResourceType = {
  order: 3,
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
  order: 5,
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
  ...SETTING_RESOURCE_TYPES,
  ...ASSIGNMENT_RESOURCE_TYPES,
  'check-group': checkGroup,
  'alert-channel': alertChannel,
  check,
  'alert-channel-subscription': alertChannelSubscription,
}
