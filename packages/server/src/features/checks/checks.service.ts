import { CHECK_BODIES, CHECK_TYPES, type CheckType } from '@svc/core'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { compileBodyValidator } from '../../http/validation.ts'
import { syncCheckSchedule } from '../../runs/check-schedule.ts'
import type { HeartbeatSettings } from '../../runs/heartbeat-window.ts'
import { requestSuiteCancel } from '../../runs/suite-runs.repo.ts'
import { inTransaction } from '../../transactions.ts'
import * as alerting from '../alert-channels/check-subscriptions.ts'
import { resolveIncidentFromCheck } from '../incidents/incident-triggers.ts'
import { keepStatusHistory } from '../status-site/uptime-history.ts'
import { type ReferenceOwner, replaceReferences } from '../variables/variable-references.service.ts'
import { insertNewChecks } from './check-creation.service.ts'
import { normalizeDefinition } from './check-definition-rules.ts'
import { checkResponse, checkResponseInGroup, checkResponses, publicDefinition } from './check-responses.ts'
import { columnsOf, HEARTBEAT_FIELDS, referencedKeysOf, schedulable } from './check-rows.ts'
import { aCheckType } from './check-type-names.ts'
import type { StoredVariable } from './check-variables.ts'
import * as repo from './checks.repo.ts'
import type { AnyCheck } from './checks.schemas.ts'
import { effectiveTags } from './effective-check.ts'
import { type Definition, resolveCheck, resolveChecks } from './resolve-check.ts'

/** Check groups check their private locations as checks do. */
export { assertPrivateLocations } from './check-definition-rules.ts'

const validators = Object.fromEntries(
  Object.entries(CHECK_BODIES).map(([type, schema]) => [type, compileBodyValidator(schema)]),
) as Record<CheckType, (body: unknown) => void>

export async function createCheck(
  ctx: ServiceContext,
  accountId: string,
  checkType: CheckType,
  body: Record<string, unknown>,
  options: { sentFields: ReadonlySet<string>; autoAssignAlerts?: boolean },
): Promise<AnyCheck> {
  // One transaction: what it names (group, channels, ...) can't go before it commits, and a failure
  // saves nothing. The path of a deploy's many checks, for one.
  const autoAssignAlerts = options.autoAssignAlerts ?? true
  const [resolved] = await inTransaction(ctx, (tx) =>
    insertNewChecks(tx, accountId, [{ checkType, body, sentFields: options.sentFields }], {
      autoAssignAlerts,
    }),
  )
  if (!resolved) throw new Error('the new check was not saved')
  return withSaveWarnings(await checkResponse(ctx, resolved), ignoredPlaces(checkType, body))
}

/**
 * The hosted generic create: the body's `checkType` names the type (`PLAYWRIGHT` for AUTOMATION) and
 * the rest is that type's create body, checked and saved as its own route would.
 */
export async function createCheckOfSentType(
  ctx: ServiceContext,
  accountId: string,
  body: Record<string, unknown>,
  options: { sentFields: ReadonlySet<string>; autoAssignAlerts?: boolean },
): Promise<AnyCheck> {
  const { checkType: sent, ...fields } = body
  const checkType = sent === 'PLAYWRIGHT' ? 'AUTOMATION' : sent
  if (!CHECK_TYPES.includes(checkType as CheckType))
    throw invalid('body.checkType', `must be one of ${[...CHECK_TYPES, 'PLAYWRIGHT'].join(', ')}`)
  validators[checkType as CheckType](fields)
  const sentFields = new Set([...options.sentFields].filter((field) => field !== 'checkType'))
  return createCheck(ctx, accountId, checkType as CheckType, fields, { ...options, sentFields })
}

export async function getCheck(ctx: ServiceContext, accountId: string, id: string): Promise<AnyCheck> {
  const row = await repo.findCheck(ctx, accountId, id)
  if (!row) throw notFound(`Check ${id} not found`)
  return checkResponse(ctx, await resolveCheck(ctx, row))
}

/**
 * A check of the group `groupId` (404 when it is in another group or none): as saved, or `inGroup`, as it
 * runs there with the group's settings applied.
 */
export async function getCheckOfGroup(
  ctx: ServiceContext,
  accountId: string,
  ids: { groupId: number; checkId: string },
  view: 'own' | 'inGroup',
): Promise<AnyCheck> {
  const row = await repo.findCheck(ctx, accountId, ids.checkId)
  if (!row || row.group_id === null || Number(row.group_id) !== ids.groupId) {
    throw notFound(`Check ${ids.checkId} not found in check group ${ids.groupId}`)
  }
  const resolved = await resolveCheck(ctx, row)
  return view === 'inGroup' ? checkResponseInGroup(ctx, resolved) : checkResponse(ctx, resolved)
}

/** A check by its id alone, whatever its account: for open routes its unguessable id addresses (badges). */
export async function findCheckById(ctx: ServiceContext, id: string) {
  const [row] = await repo.findChecksByIds(ctx, [id])
  return row
}

/** Which of `ids` are checks of the account, in one query. */
export async function existingCheckIds(ctx: ServiceContext, accountId: string, ids: string[]) {
  const rows = await repo.findChecksByIds(ctx, ids)
  return new Set(rows.filter((row) => row.account_id === accountId).map((row) => row.id))
}

export async function listChecks(
  ctx: ServiceContext,
  accountId: string,
  filter: repo.CheckFilter,
  page: Page,
) {
  const { rows, total } = await repo.listChecks(ctx, accountId, filter, page)
  return { items: await checkResponses(ctx, await resolveChecks(ctx, accountId, rows)), total }
}

/**
 * Replaces a check's definition (`PUT /v1/checks/{type}/{id}`, `mode: 'replace'`) or merges the given
 * top-level fields onto it (`PUT /v1/checks/{id}`, `mode: 'merge'`). Either way the result is validated
 * as a whole and takes effect on the check's next run.
 */
export async function updateCheck(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  body: Record<string, unknown>,
  options: { mode: 'replace' | 'merge'; checkType?: CheckType; sentFields: ReadonlySet<string> },
): Promise<AnyCheck> {
  // One transaction, the check locked: a deletion waits for it (or it finds the check gone), what it
  // names can't go before it commits, a failure saves nothing, and the incidents it no longer opens are
  // resolved with the save.
  const saved = await inTransaction(ctx, async (tx) => {
    const row = await repo.lockCheck(tx, accountId, id, 'change')
    if (!row) throw notFound(`Check ${id} not found`)
    const checkType = row.check_type as CheckType
    if (options.checkType && options.checkType !== checkType) {
      throw badRequest(`Check ${id} is ${aCheckType(checkType)} check, not ${options.checkType}`)
    }
    const current = JSON.parse(row.definition) as Definition
    const tagsBefore = (await resolveCheck(tx, row)).effective.tags
    const { input, sentFields } =
      options.mode === 'merge'
        ? mergedInput(id, checkType, current, body, options.sentFields)
        : { input: body, sentFields: options.sentFields }
    const definition = await normalizeDefinition(
      tx,
      accountId,
      checkType,
      input,
      current.environmentVariables,
      sentFields,
    )
    const updated = {
      ...columnsOf(definition),
      definition: JSON.stringify(definition),
      updated_at: isoNow(tx),
    }
    await repo.replaceCheck(tx, id, updated, definition.tags)
    await recordReferences(tx, accountId, { type: 'check', id }, definition)
    await alerting.replaceSubscriptionsIfGiven(tx, { checkId: id }, subscriptionsIn(body))
    const resolved = await resolveCheck(tx, { ...row, ...updated })
    await keepTagHistory(tx, accountId, [{ checkId: id, before: tagsBefore, after: resolved.effective.tags }])
    const heartbeatChanged = HEARTBEAT_FIELDS.some(
      (field) =>
        (current.heartbeat as HeartbeatSettings)?.[field] !==
        (definition.heartbeat as HeartbeatSettings)?.[field],
    )
    await syncCheckSchedule(tx, schedulable(resolved), { heartbeatChanged })
    const trigger = triggerOf(current)
    if (trigger && !triggerOf(definition))
      await resolveOpenedIncidents(tx, accountId, id, trigger, 'no longer opens incidents')
    return { resolved, input }
  })
  const { resolved, input } = saved
  return withSaveWarnings(
    await checkResponse(ctx, resolved),
    ignoredPlaces(resolved.row.check_type as CheckType, input),
  )
}

/** A merge's body over the check's current definition, validated as a whole; every field of either counts as sent. */
function mergedInput(
  id: string,
  checkType: CheckType,
  current: Definition,
  body: Record<string, unknown>,
  sent: ReadonlySet<string>,
): { input: Record<string, unknown>; sentFields: ReadonlySet<string> } {
  const { checkType: sentType, ...fields } = body
  assertSameCheckType(id, checkType, sentType)
  const input = { ...publicDefinition(current), ...fields }
  validators[checkType](input)
  return {
    input,
    sentFields: new Set([...Object.keys(current), ...sent].filter((field) => field !== 'checkType')),
  }
}

/** A merge may name the check's type (the hosted `PUT /v1/checks/{id}` does), never change it. */
function assertSameCheckType(id: string, checkType: CheckType, sent: unknown) {
  if (sent === undefined) return
  const named = sent === 'PLAYWRIGHT' ? 'AUTOMATION' : sent
  if (named !== checkType) {
    throw invalid('body.checkType', `is ${checkType} for check ${id}: a check's type can't change`)
  }
}

/**
 * What a save took but ignores, told in its answer only (nothing of it is stored): the locations and
 * private locations of a heartbeat, which is judged from its pings and never runs anywhere.
 */
function ignoredPlaces(checkType: CheckType, body: Record<string, unknown>): string[] {
  if (checkType !== 'HEARTBEAT') return []
  return (['locations', 'privateLocations'] as const).flatMap((field) => {
    const places = [...new Set((body[field] as string[] | undefined) ?? [])]
    if (places.length === 0) return []
    return [
      `Heartbeat checks don't run from locations (they are judged from their pings): ${field} ${places.join(', ')} ignored`,
    ]
  })
}

function withSaveWarnings(check: AnyCheck, warnings: string[]): AnyCheck {
  return warnings.length === 0 ? check : { ...check, warnings: [...check.warnings, ...warnings] }
}

export async function deleteCheck(ctx: ServiceContext, accountId: string, id: string): Promise<void> {
  // The check locked first: a save naming it (a service's checks) that holds it commits before, and the
  // services it links are kept; one that comes after waits, then finds it gone. Its services keep what it
  // showed on status pages, in the transaction that deletes its results, as do the variables it used and
  // the incidents it opened. Its suite runs in flight (minutes long) are asked to stop in it too (their
  // results are dropped), so a deletion that fails leaves them running and one that answers stopped them.
  await inTransaction(ctx, async (tx) => {
    const row = await repo.lockCheck(tx, accountId, id, 'exclusive')
    if (!row) throw notFound(`Check ${id} not found`)
    await keepStatusHistory(tx, accountId, id)
    await repo.deleteCheck(tx, id)
    await replaceReferences(tx, accountId, { type: 'check', id }, [])
    await resolveOpenedIncidents(tx, accountId, id, triggerOf(JSON.parse(row.definition)), 'was deleted')
    if (row.check_type === 'AUTOMATION') await requestSuiteCancel(tx, id, tx.clock.now().getTime())
  })
  // Left over when the store is unreachable now: pruning removes the artifacts of deleted checks.
  await ctx.scripts.artifacts.removeCheck(id).catch(() => {})
}

/**
 * Before a group's tags change: keeps the tags each of its checks had, for the status history. Its checks
 * are locked as referenced first, in key order, so one being deleted meanwhile goes before or after.
 */
export async function keepTagHistoryOfGroup(
  ctx: ServiceContext,
  accountId: string,
  groupId: number,
  groupTags: { before: string[]; after: string[] },
): Promise<void> {
  if (sameTags(groupTags.before, groupTags.after)) return
  const rows = await repo.lockChecksOfGroup(ctx, accountId, groupId, 'referenced')
  const changes = rows.map((row) => {
    const own = (JSON.parse(row.definition) as Definition).tags
    return {
      checkId: row.id,
      before: effectiveTags(own, groupTags.before),
      after: effectiveTags(own, groupTags.after),
    }
  })
  await keepTagHistory(ctx, accountId, changes)
}

/**
 * Maintenance covers a check by the tags it had at the time (status history): when they change, the
 * ones it had until now are kept, and the new ones count from now on.
 */
async function keepTagHistory(
  ctx: ServiceContext,
  accountId: string,
  changes: { checkId: string; before: string[]; after: string[] }[],
): Promise<void> {
  const endsAt = isoNow(ctx)
  await repo.insertTagHistory(
    ctx,
    changes
      .filter(({ before, after }) => !sameTags(before, after))
      .map(({ checkId, before }) => ({
        account_id: accountId,
        check_id: checkId,
        tags: JSON.stringify(before),
        ends_at: endsAt,
      })),
  )
}

function sameTags(a: string[], b: string[]): boolean {
  return a.length === b.length && new Set([...a, ...b]).size === a.length
}

const triggerOf = (definition: object) =>
  (definition as { triggerIncident?: { notifySubscribers?: boolean } | null }).triggerIncident ?? undefined

/**
 * Only the check's recovery resolves the incidents its `triggerIncident` opened: once it is deleted or
 * opens no incidents any more, that never comes, so they are resolved now, saying why.
 */
async function resolveOpenedIncidents(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  trigger: { notifySubscribers?: boolean } | undefined,
  why: string,
): Promise<void> {
  await resolveIncidentFromCheck(
    ctx,
    { id, accountId },
    {
      description: `Resolved automatically: the check that opened this incident ${why}, so it can no longer report recovery.`,
      notifySubscribers: trigger?.notifySubscribers ?? false,
    },
  )
}

/**
 * Records which account variables a check definition refers to, for the variables' `usage`. (Groups hold nothing that refers to variables
 * yet; `checkGroupsCount` counts them once they carry request defaults or scripts.)
 */
async function recordReferences(
  ctx: ServiceContext,
  accountId: string,
  owner: ReferenceOwner,
  definition: { environmentVariables: StoredVariable[] },
): Promise<void> {
  await replaceReferences(ctx, accountId, owner, referencedKeysOf(definition))
}

/** Re-plans the runs of every check of a group, e.g. after the group was (de)activated. */
export async function resyncGroupChecks(
  ctx: ServiceContext,
  accountId: string,
  groupId: number,
): Promise<void> {
  const rows = await repo.listChecksOfGroup(ctx, accountId, groupId)
  for (const resolved of await resolveChecks(ctx, accountId, rows)) {
    await syncCheckSchedule(ctx, schedulable(resolved))
  }
}

const subscriptionsIn = (body: Record<string, unknown>) =>
  body.alertChannelSubscriptions as alerting.SubscriptionInput[] | undefined

/** Every check row of the account, unresolved (the dashboard's overview resolves them in one go). */
export const listCheckRowsOfAccount = repo.listChecksOfAccount
