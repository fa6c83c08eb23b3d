import { completeApiCheckDefaults } from '@svc/core'
import type { CheckGroupsTable } from '@svc/db'
import type { Selectable } from 'kysely'
import { isoNow, type ServiceContext } from '../../context.ts'
import { conflict, invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { inTransaction } from '../../transactions.ts'
import * as alerting from '../alert-channels/check-subscriptions.ts'
import { publicVariables, type StoredVariable, sealVariables } from '../checks/check-variables.ts'
import { assertPrivateLocations, keepTagHistoryOfGroup, resyncGroupChecks } from '../checks/checks.service.ts'
import { UNBOUND, withProjectBindings } from '../projects/project-bindings.ts'
import { assertSnippetsOfAccount } from '../snippets/snippets.service.ts'
import * as repo from './check-groups.repo.ts'
import type { CheckGroup, CheckGroupBody } from './check-groups.schemas.ts'

type Definition = Omit<CheckGroupBody, 'environmentVariables'> & { environmentVariables: StoredVariable[] }

export async function createGroup(
  ctx: ServiceContext,
  accountId: string,
  body: CheckGroupBody,
  options: { autoAssignAlerts?: boolean } = {},
): Promise<CheckGroup> {
  // One transaction: what it names (channels, private locations) can't go before it commits, and a
  // failure saves nothing.
  const row = await inTransaction(ctx, async (tx) => {
    await assertPrivateLocations(tx, accountId, body.privateLocations ?? [])
    await assertSnippetsOfAccount(tx, accountId, {
      'body.setupSnippetId': body.setupSnippetId,
      'body.tearDownSnippetId': body.tearDownSnippetId,
    })
    const definition = normalize(tx, body, [])
    await alerting.assertChannelsOfAccount(
      tx,
      accountId,
      body.alertChannelSubscriptions,
      'body.alertChannelSubscriptions',
    )
    const now = isoNow(tx)
    const row = await repo.insertGroup(tx, {
      account_id: accountId,
      name: body.name,
      activated: body.activated ?? true,
      muted: body.muted ?? false,
      definition: JSON.stringify(definition),
      created_at: now,
      updated_at: now,
    })
    const subscriber = { groupId: row.id }
    if (options.autoAssignAlerts === true)
      await alerting.subscribeNew(tx, accountId, subscriber, body.alertChannelSubscriptions, true)
    else await alerting.replaceSubscriptionsIfGiven(tx, subscriber, body.alertChannelSubscriptions)
    return row
  })
  return respond(ctx, row)
}

export async function getGroup(ctx: ServiceContext, accountId: string, id: number): Promise<CheckGroup> {
  return respond(ctx, await findOrThrow(ctx, accountId, id))
}

/** Which of `ids` are groups of the account, in one query. */
export async function existingGroupIds(ctx: ServiceContext, accountId: string, ids: number[]) {
  return (await repo.findGroups(ctx, accountId, ids)).map((row) => row.id)
}

export async function listGroups(
  ctx: ServiceContext,
  accountId: string,
  page: Page,
  filter: { tag?: string[]; name?: string[] } = {},
) {
  if (!filter.tag?.length && !filter.name?.length) {
    const { rows, total } = await repo.listGroups(ctx, accountId, page)
    return { items: await responses(ctx, rows), total }
  }
  // An account has few groups: filtered on their answers, then paged.
  const { rows } = await repo.listGroups(ctx, accountId, { limit: Number.MAX_SAFE_INTEGER, offset: 0 })
  const found = (await responses(ctx, rows)).filter(
    (group) =>
      (filter.tag ?? []).every((tag) => (group.tags ?? []).includes(tag)) &&
      (!filter.name?.length || filter.name.includes(group.name)),
  )
  return { items: found.slice(page.offset, page.offset + page.limit), total: found.length }
}

/** Replaces the group's settings; its checks pick them up on their next run. */
export async function updateGroup(ctx: ServiceContext, accountId: string, id: number, body: CheckGroupBody) {
  // One transaction, the group locked: a deletion waits for it (or it finds the group gone), what it
  // names can't go before it commits, and a failure saves nothing.
  const saved = await inTransaction(ctx, async (tx) => {
    const row = await repo.lockGroup(tx, accountId, id, 'change')
    if (!row) throw notFound(`Check group ${id} not found`)
    const previous = JSON.parse(row.definition) as Definition
    await assertPrivateLocations(tx, accountId, body.privateLocations ?? [])
    await assertSnippetsOfAccount(tx, accountId, {
      'body.setupSnippetId': body.setupSnippetId,
      'body.tearDownSnippetId': body.tearDownSnippetId,
    })
    await alerting.assertChannelsOfAccount(
      tx,
      accountId,
      body.alertChannelSubscriptions,
      'body.alertChannelSubscriptions',
    )
    const definition = normalize(tx, body, previous.environmentVariables)
    await keepTagHistoryOfGroup(tx, accountId, id, {
      before: previous.tags ?? [],
      after: definition.tags ?? [],
    })
    const changes = {
      name: body.name,
      activated: body.activated ?? true,
      muted: body.muted ?? false,
      definition: JSON.stringify(definition),
      updated_at: isoNow(tx),
    }
    await repo.updateGroup(tx, id, changes)
    await alerting.replaceSubscriptionsIfGiven(tx, { groupId: id }, body.alertChannelSubscriptions)
    return { ...row, ...changes }
  })
  // After the commit, each check's schedule in a transaction of its own, as any change of a check's:
  // one holding the schedules of many checks at once could wait in a cycle with the results of runs.
  await resyncGroupChecks(ctx, accountId, id)
  return respond(ctx, saved)
}

/**
 * A group that still holds checks can't be deleted: move or delete them first. The group is locked
 * first: a check being saved into it commits before (and is counted), or waits and finds it gone.
 */
export async function deleteGroup(ctx: ServiceContext, accountId: string, id: number) {
  await inTransaction(ctx, async (tx) => {
    if (!(await repo.lockGroup(tx, accountId, id, 'exclusive'))) throw notFound(`Check group ${id} not found`)
    const checks = await repo.countChecksInGroup(tx, id)
    if (checks > 0)
      throw conflict(`Check group ${id} still holds ${checks} check(s): move or delete them first`)
    await repo.deleteGroup(tx, id)
  })
}

async function findOrThrow(ctx: ServiceContext, accountId: string, id: number) {
  const row = await repo.findGroup(ctx, accountId, id)
  if (!row) throw notFound(`Check group ${id} not found`)
  return row
}

function normalize(ctx: ServiceContext, body: CheckGroupBody, previous: StoredVariable[]): Definition {
  const locations = [...new Set(body.locations ?? [])]
  const unserved = locations.find((location) => !ctx.locations.served.includes(location))
  if (unserved) throw invalid('body.locations', `location ${unserved} is not served here`)
  const privateLocations = [...new Set(body.privateLocations ?? [])]
  return {
    ...body,
    tags: [...new Set(body.tags ?? [])],
    locations,
    privateLocations,
    frequency: body.frequency ?? null,
    alertChannelSubscriptions: undefined, // kept in the alert channels' table
    runtimeId: body.runtimeId ?? null,
    retryStrategy: body.retryStrategy ?? null,
    environmentVariables: sealVariables(ctx, body.environmentVariables ?? [], previous),
  }
}

async function respond(ctx: ServiceContext, row: Selectable<CheckGroupsTable>): Promise<CheckGroup> {
  return (await responses(ctx, [row]))[0] as CheckGroup
}

async function responses(ctx: ServiceContext, rows: Selectable<CheckGroupsTable>[]): Promise<CheckGroup[]> {
  const groups = await alerting.withGroupSubscriptions(ctx, rows.map(toResponse))
  return withProjectBindings(ctx, 'check-group', groups, (group) => group.id)
}

function toResponse(row: Selectable<CheckGroupsTable>): CheckGroup {
  const definition = JSON.parse(row.definition) as Definition
  return {
    ...definition,
    environmentVariables: publicVariables(definition.environmentVariables),
    apiCheckDefaults: completeApiCheckDefaults(definition.apiCheckDefaults),
    setupSnippetId: definition.setupSnippetId ?? null,
    tearDownSnippetId: definition.tearDownSnippetId ?? null,
    localSetupScript: definition.localSetupScript ?? null,
    localTearDownScript: definition.localTearDownScript ?? null,
    id: row.id,
    name: row.name,
    activated: Boolean(row.activated),
    muted: Boolean(row.muted),
    projectBindings: UNBOUND, // filled by withProjectBindings()
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
