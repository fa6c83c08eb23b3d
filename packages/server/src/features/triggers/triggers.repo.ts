import type { TriggerTokensTable } from '@svc/db'
import type { Insertable } from 'kysely'
import type { ServiceContext } from '../../context.ts'

export type TriggerOf = { checkId: string } | { groupId: number }

const whereOf = (target: TriggerOf) =>
  'checkId' in target
    ? ({ column: 'check_id', value: target.checkId } as const)
    : ({ column: 'group_id', value: target.groupId } as const)

export async function findTrigger(ctx: ServiceContext, accountId: string, target: TriggerOf) {
  const { column, value } = whereOf(target)
  return ctx.db
    .selectFrom('trigger_tokens')
    .selectAll()
    .where('account_id', '=', accountId)
    .where(column, '=', value)
    .executeTakeFirst()
}

export async function insertTrigger(ctx: ServiceContext, row: Insertable<TriggerTokensTable>) {
  return ctx.db.insertInto('trigger_tokens').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function deleteTrigger(ctx: ServiceContext, accountId: string, target: TriggerOf) {
  const { column, value } = whereOf(target)
  await ctx.db
    .deleteFrom('trigger_tokens')
    .where('account_id', '=', accountId)
    .where(column, '=', value)
    .execute()
}

export async function markCalled(ctx: ServiceContext, id: number, nowIso: string) {
  await ctx.db.updateTable('trigger_tokens').set({ called_at: nowIso }).where('id', '=', id).execute()
}

export async function findTriggerByTarget(ctx: ServiceContext, target: TriggerOf) {
  const { column, value } = whereOf(target)
  return ctx.db.selectFrom('trigger_tokens').selectAll().where(column, '=', value).executeTakeFirst()
}
