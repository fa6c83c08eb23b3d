import { type ChecksTable, type CheckTagHistoryTable, fetchPage } from '@svc/db'
import { type Insertable, sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { inTransaction, locked, type RowLock } from '../../transactions.ts'

/** The only SQL for `checks`, `check_tags` and `check_tag_history`. */

/**
 * New checks and their tags, a few statements for all (a deploy creates hundreds at once). Rows are
 * sent `ROWS_PER_STATEMENT` at a time: far under SQLite's 32,766 and PostgreSQL's 65,535 parameters.
 */
export async function insertChecks(
  ctx: ServiceContext,
  checks: { row: ChecksTable; tags: string[] }[],
): Promise<void> {
  const tags = checks.flatMap(({ row, tags }) => tags.map((tag) => ({ check_id: row.id, tag })))
  await inTransaction(ctx, async ({ db }) => {
    for (let start = 0; start < checks.length; start += ROWS_PER_STATEMENT) {
      const rows = checks.slice(start, start + ROWS_PER_STATEMENT).map(({ row }) => row)
      await db.insertInto('checks').values(rows).execute()
    }
    for (let start = 0; start < tags.length; start += ROWS_PER_STATEMENT) {
      await db
        .insertInto('check_tags')
        .values(tags.slice(start, start + ROWS_PER_STATEMENT))
        .execute()
    }
  })
}

const ROWS_PER_STATEMENT = 500

export async function replaceCheck(
  ctx: ServiceContext,
  id: string,
  changes: Omit<ChecksTable, 'id' | 'account_id' | 'check_type' | 'created_at' | 'heartbeat_token'>,
  tags: string[],
): Promise<void> {
  await inTransaction(ctx, async ({ db }) => {
    await db.updateTable('checks').set(changes).where('id', '=', id).execute()
    await db.deleteFrom('check_tags').where('check_id', '=', id).execute()
    if (tags.length > 0) {
      await db
        .insertInto('check_tags')
        .values(tags.map((tag) => ({ check_id: id, tag })))
        .execute()
    }
  })
}

export async function findCheck(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('checks')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** `findCheck` in a transaction, the row locked as `lock` says (see RowLock) until it ends. */
export async function lockCheck(ctx: ServiceContext, accountId: string, id: string, lock: RowLock) {
  const query = ctx.db
    .selectFrom('checks')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
  return locked(ctx, query, lock).executeTakeFirst()
}

/** Which of `ids` are checks of the account, locked as referenced until the transaction ends. */
export async function lockReferencedChecks(ctx: ServiceContext, accountId: string, ids: string[]) {
  if (ids.length === 0) return new Set<string>()
  const query = ctx.db
    .selectFrom('checks')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id')
  return new Set((await locked(ctx, query, 'referenced').execute()).map((row) => row.id))
}

/** Whether check `id` (of any account) exists, locked as referenced until the transaction ends. */
export async function lockReferencedCheck(ctx: ServiceContext, id: string): Promise<boolean> {
  return (await lockReferencedChecksById(ctx, [id])).has(id)
}

/** Which of `ids` are checks (of any account), locked as referenced until the transaction ends. */
export async function lockReferencedChecksById(ctx: ServiceContext, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const query = ctx.db
    .selectFrom('checks')
    .select('id')
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
  return new Set((await locked(ctx, query, 'referenced').execute()).map((row) => row.id))
}

export interface CheckFilter {
  checkType?: string
  tag?: string
  groupId?: number
  activated?: boolean
  nameContains?: string
}

export async function listChecks(
  ctx: ServiceContext,
  accountId: string,
  filter: CheckFilter,
  page: { limit: number; offset: number },
) {
  let query = ctx.db.selectFrom('checks').where('account_id', '=', accountId)
  if (filter.checkType) query = query.where('check_type', '=', filter.checkType)
  if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId)
  if (filter.activated !== undefined) query = query.where('activated', '=', filter.activated)
  if (filter.nameContains) {
    const pattern = `%${filter.nameContains.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    query = query.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`)
  }
  const tag = filter.tag
  if (tag !== undefined) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('check_tags')
          .select('check_tags.check_id')
          .whereRef('check_tags.check_id', '=', 'checks.id')
          .where('check_tags.tag', '=', tag),
      ),
    )
  }
  return fetchPage(query, (q) => q.selectAll().orderBy('created_at').orderBy('id'), page)
}

export async function deleteCheck(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('checks').where('id', '=', id).execute()
}

export async function listChecksOfGroup(ctx: ServiceContext, accountId: string, groupId: number) {
  return ctx.db
    .selectFrom('checks')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('group_id', '=', groupId)
    .execute()
}

/** `listChecksOfGroup` in a transaction, in key order, the rows locked as `lock` says until it ends. */
export async function lockChecksOfGroup(
  ctx: ServiceContext,
  accountId: string,
  groupId: number,
  lock: RowLock,
) {
  const query = ctx.db
    .selectFrom('checks')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('group_id', '=', groupId)
    .orderBy('id')
  return locked(ctx, query, lock).execute()
}

/** A check by id in any account: for the scheduler, which runs every account's checks. */
export async function findCheckById(ctx: ServiceContext, id: string) {
  return ctx.db.selectFrom('checks').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The heartbeat checks of `tokens` that exist. */
export async function findChecksByHeartbeatTokens(ctx: ServiceContext, tokens: string[]) {
  if (tokens.length === 0) return []
  return ctx.db.selectFrom('checks').selectAll().where('heartbeat_token', 'in', tokens).execute()
}

/** The checks of `ids` that exist, of any account. */
export async function findChecksByIds(ctx: ServiceContext, ids: string[]) {
  if (ids.length === 0) return []
  return ctx.db.selectFrom('checks').selectAll().where('id', 'in', ids).execute()
}

/** The account of each of `ids` that is a check (ids that aren't are left out). */
export async function accountIdsOfChecks(ctx: ServiceContext, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map()
  const rows = await ctx.db.selectFrom('checks').select(['id', 'account_id']).where('id', 'in', ids).execute()
  return new Map(rows.map((row) => [row.id, row.account_id]))
}

/** Every check of an account (for rules that look into definitions, e.g. who names a location). */
export async function listChecksOfAccount(ctx: ServiceContext, accountId: string) {
  return ctx.db.selectFrom('checks').selectAll().where('account_id', '=', accountId).execute()
}

/** Rows per insert: four parameters each, well within both engines' limits. */
const TAG_HISTORY_PER_QUERY = 1000

export async function insertTagHistory(ctx: ServiceContext, rows: Insertable<CheckTagHistoryTable>[]) {
  for (let at = 0; at < rows.length; at += TAG_HISTORY_PER_QUERY)
    await ctx.db
      .insertInto('check_tag_history')
      .values(rows.slice(at, at + TAG_HISTORY_PER_QUERY))
      .execute()
}

/** The kept tags of `checkIds` that ended after `afterIso`, oldest first per check. */
export async function tagHistoryAfter(ctx: ServiceContext, checkIds: string[], afterIso: string) {
  if (checkIds.length === 0) return []
  return ctx.db
    .selectFrom('check_tag_history')
    .select(['check_id', 'tags', 'ends_at'])
    .where('check_id', 'in', checkIds)
    .where('ends_at', '>', afterIso)
    .orderBy('check_id')
    .orderBy('ends_at')
    .orderBy('id')
    .execute()
}

/** Drops the account's kept tags that ended by `beforeIso` (result retention). */
export async function pruneTagHistory(ctx: ServiceContext, accountId: string, beforeIso: string) {
  await ctx.db
    .deleteFrom('check_tag_history')
    .where('account_id', '=', accountId)
    .where('ends_at', '<=', beforeIso)
    .execute()
}
