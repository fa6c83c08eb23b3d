import {
  fetchPage,
  type StatusPageAccessTokensTable,
  type StatusPageCardsTable,
  type StatusPagesTable,
} from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'
import { inTransaction, locked, type RowLock } from '../../transactions.ts'

/** The only SQL for `status_pages`, `status_page_cards`, `status_page_card_services` and access tokens. */

export interface CardRow extends StatusPageCardsTable {
  serviceIds: string[]
}

async function writeCards(ctx: ServiceContext, pageId: string, cards: CardRow[]): Promise<void> {
  const cardIds = await ctx.db
    .selectFrom('status_page_cards')
    .select('id')
    .where('status_page_id', '=', pageId)
    .execute()
  if (cardIds.length > 0) {
    const ids = cardIds.map((c) => c.id)
    await ctx.db.deleteFrom('status_page_card_services').where('card_id', 'in', ids).execute()
    await ctx.db.deleteFrom('status_page_cards').where('id', 'in', ids).execute()
  }
  if (cards.length === 0) return
  await ctx.db
    .insertInto('status_page_cards')
    .values(cards.map(({ serviceIds: _, ...card }) => card))
    .execute()
  const links = cards.flatMap((card) =>
    card.serviceIds.map((service_id, position) => ({ card_id: card.id, service_id, position })),
  )
  if (links.length > 0) await ctx.db.insertInto('status_page_card_services').values(links).execute()
}

export async function insertPage(ctx: ServiceContext, row: StatusPagesTable, cards: CardRow[]) {
  await inTransaction(ctx, async (tx) => {
    await tx.db.insertInto('status_pages').values(row).execute()
    await writeCards(tx, row.id, cards)
  })
}

/** Replaces the page's settings and cards and bumps both versions. */
export async function replacePage(
  ctx: ServiceContext,
  id: string,
  changes: Omit<StatusPagesTable, 'id' | 'account_id' | 'created_at' | 'version' | 'content_version'>,
  cards: CardRow[],
) {
  await inTransaction(ctx, async (tx) => {
    await tx.db
      .updateTable('status_pages')
      .set({
        ...changes,
        version: sql`version + 1`,
        content_version: sql`content_version + 1`,
      })
      .where('id', '=', id)
      .execute()
    await writeCards(tx, id, cards)
  })
}

export async function findPage(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('status_pages')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** Whether page `id` exists, locked as `lock` until the transaction ends. */
export async function lockPage(ctx: ServiceContext, id: string, lock: RowLock): Promise<boolean> {
  const query = ctx.db.selectFrom('status_pages').select('id').where('id', '=', id)
  return (await locked(ctx, query, lock).executeTakeFirst()) !== undefined
}

export async function findPageById(ctx: ServiceContext, id: string) {
  return ctx.db.selectFrom('status_pages').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function findPageBySlug(ctx: ServiceContext, slug: string) {
  return ctx.db.selectFrom('status_pages').selectAll().where('url', '=', slug).executeTakeFirst()
}

export async function findPageByDomain(ctx: ServiceContext, domain: string) {
  return ctx.db.selectFrom('status_pages').selectAll().where('custom_domain', '=', domain).executeTakeFirst()
}

export async function listPages(
  ctx: ServiceContext,
  accountId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('status_pages').where('account_id', '=', accountId)
  return fetchPage(query, (q) => q.selectAll().orderBy('created_at').orderBy('id'), page)
}

/** The cards of each page in order, each with its service ids in order. */
export async function cardsOfPages(ctx: ServiceContext, pageIds: string[]): Promise<Map<string, CardRow[]>> {
  const byPage = new Map<string, CardRow[]>(pageIds.map((id) => [id, []]))
  if (pageIds.length === 0) return byPage
  const cards = await ctx.db
    .selectFrom('status_page_cards')
    .selectAll()
    .where('status_page_id', 'in', pageIds)
    .orderBy('position')
    .execute()
  if (cards.length === 0) return byPage
  const links = await ctx.db
    .selectFrom('status_page_card_services')
    .select(['card_id', 'service_id'])
    .where(
      'card_id',
      'in',
      cards.map((c) => c.id),
    )
    .orderBy('position')
    .execute()
  const servicesOf = new Map<string, string[]>(cards.map((c) => [c.id, []]))
  for (const link of links) servicesOf.get(link.card_id)?.push(link.service_id)
  for (const card of cards) {
    byPage.get(card.status_page_id)?.push({ ...card, serviceIds: servicesOf.get(card.id) ?? [] })
  }
  return byPage
}

export async function deletePage(ctx: ServiceContext, id: string): Promise<void> {
  await ctx.db.deleteFrom('status_pages').where('id', '=', id).execute()
}

/** Pages whose cards show any of `serviceIds`. */
export async function pageIdsShowingServices(ctx: ServiceContext, serviceIds: string[]): Promise<string[]> {
  if (serviceIds.length === 0) return []
  const rows = await ctx.db
    .selectFrom('status_page_card_services as cs')
    .innerJoin('status_page_cards as c', 'c.id', 'cs.card_id')
    .select('c.status_page_id')
    .distinct()
    .where('cs.service_id', 'in', serviceIds)
    .execute()
  return rows.map((r) => r.status_page_id)
}

/** Marks what the public pages show as changed, so every node's cache rebuilds them. */
export async function bumpContentVersion(ctx: ServiceContext, pageIds: string[]): Promise<void> {
  if (pageIds.length === 0) return
  await ctx.db
    .updateTable('status_pages')
    .set({ content_version: sql`content_version + 1` })
    .where('id', 'in', pageIds)
    .execute()
}

export async function insertAccessToken(ctx: ServiceContext, row: StatusPageAccessTokensTable) {
  await ctx.db.insertInto('status_page_access_tokens').values(row).execute()
}

export async function listAccessTokens(
  ctx: ServiceContext,
  pageId: string,
  page: { limit: number; offset: number },
) {
  const query = ctx.db.selectFrom('status_page_access_tokens').where('status_page_id', '=', pageId)
  return fetchPage(query, (q) => q.selectAll().orderBy('created_at').orderBy('id'), page)
}

export async function deleteAccessToken(ctx: ServiceContext, pageId: string, id: string): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('status_page_access_tokens')
    .where('status_page_id', '=', pageId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function accessTokenExists(ctx: ServiceContext, pageId: string, tokenHash: string) {
  const row = await ctx.db
    .selectFrom('status_page_access_tokens')
    .select('id')
    .where('status_page_id', '=', pageId)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst()
  return row !== undefined
}
