import { randomBytes, randomUUID } from 'node:crypto'
import { DEFAULT_THEME_COLORS, type StatusPageTheme, type ThemeColors } from '@svc/core'
import { isUniqueViolation, type StatusPageServicesTable, type StatusPagesTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { conflict, conflictOn, invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { inTransaction } from '../../transactions.ts'
import { hashApiKey } from '../api-keys/api-keys.service.ts'
import { findDashboardByDomain } from '../dashboards/dashboard-lookups.service.ts'
import { type ProjectBindings, withProjectBindings } from '../projects/project-bindings.ts'
import { checkIdsOfServices, findServices } from '../status-page-services/service-lookups.service.ts'
import { servicesOfAccount, toService } from '../status-page-services/status-page-services.service.ts'
import { forgetPublicPage } from '../status-site/page-cache.ts'
import * as repo from './status-pages.repo.ts'
import type { StatusPage, StatusPageBody, StatusPageV1 } from './status-pages.schemas.ts'

/** Where the deprecated v1 form says it is going (API.md: deprecation and sunset headers). */
export const V1_SUNSET = 'Thu, 31 Dec 2026 23:59:59 GMT'

export async function createStatusPage(
  ctx: ServiceContext,
  accountId: string,
  body: StatusPageBody,
): Promise<StatusPage> {
  const id = randomUUID()
  const now = isoNow(ctx)
  const fields = await normalize(ctx, accountId, id, body)
  const row: StatusPagesTable = {
    id,
    account_id: accountId,
    ...fields,
    version: 1,
    content_version: 1,
    created_at: now,
    updated_at: now,
  }
  // The services its cards show can't go before it commits (or, deleted meanwhile, are unknown).
  await uniquely(() =>
    inTransaction(ctx, async (tx) => {
      await repo.insertPage(tx, row, await cardRows(tx, accountId, id, body, [], now))
    }),
  )
  forgetPublicPage(ctx, id)
  return getStatusPage(ctx, accountId, id)
}

export async function getStatusPage(ctx: ServiceContext, accountId: string, id: string): Promise<StatusPage> {
  const [page] = await assemble(ctx, accountId, [await findOrThrow(ctx, accountId, id)])
  return page as StatusPage
}

export async function listStatusPages(ctx: ServiceContext, accountId: string, page: Page) {
  const { rows, total } = await repo.listPages(ctx, accountId, page)
  return { items: await assemble(ctx, accountId, rows), total }
}

/** Replaces the page's settings and cards (cards named by id keep it); bumps `version`. */
export async function updateStatusPage(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  body: StatusPageBody,
): Promise<StatusPage> {
  await findOrThrow(ctx, accountId, id)
  const now = isoNow(ctx)
  const fields = await normalize(ctx, accountId, id, body)
  const existing = (await repo.cardsOfPages(ctx, [id])).get(id) ?? []
  // The services its cards show can't go before it commits (or, deleted meanwhile, are unknown).
  await uniquely(() =>
    inTransaction(ctx, async (tx) => {
      const cards = await cardRows(tx, accountId, id, body, existing, now)
      await repo.replacePage(tx, id, { ...fields, updated_at: now }, cards)
    }),
  )
  forgetPublicPage(ctx, id)
  return getStatusPage(ctx, accountId, id)
}

export async function deleteStatusPage(ctx: ServiceContext, accountId: string, id: string): Promise<void> {
  await findOrThrow(ctx, accountId, id)
  await repo.deletePage(ctx, id)
  forgetPublicPage(ctx, id)
}

/** The deprecated v1 form of the spec, field for field. */
export async function getStatusPageV1(
  ctx: ServiceContext,
  accountId: string,
  id: string,
): Promise<StatusPageV1> {
  const page = await getStatusPage(ctx, accountId, id)
  const [bound] = await withProjectBindings(ctx, 'status-page', [page], (p) => p.id)
  return {
    id: page.id,
    name: page.name,
    url: page.url,
    description: page.description,
    customDomain: page.customDomain,
    themeColors: page.themeColors,
    logo: page.logo,
    logoDark: page.logoDark,
    redirectTo: page.redirectTo,
    favicon: page.favicon,
    defaultTheme: page.defaultTheme,
    cards: page.cards.map((card) => ({
      id: card.id,
      name: card.name,
      created_at: card.created_at,
      updated_at: card.updated_at,
      services: card.services.map((s) => ({
        name: s.name,
        id: s.id,
        accountId: s.accountId,
        created_at: s.created_at,
        updated_at: s.updated_at,
      })),
    })),
    version: page.version,
    whiteLabel: page.whiteLabel,
    isPrivate: page.isPrivate,
    projectBindings: (bound as { projectBindings: ProjectBindings }).projectBindings,
  }
}

/**
 * The account's pages whose cards show every one of `serviceIds`, oldest first: where an incident named
 * by its services alone (the hosted API's form) is posted.
 */
export async function pagesShowingServices(
  ctx: ServiceContext,
  accountId: string,
  serviceIds: string[],
): Promise<string[]> {
  const candidates = await repo.pageIdsShowingServices(ctx, serviceIds)
  const cards = await repo.cardsOfPages(ctx, candidates)
  const rows: StatusPagesTable[] = []
  for (const id of candidates) {
    const shown = new Set((cards.get(id) ?? []).flatMap((card) => card.serviceIds))
    const row = serviceIds.every((s) => shown.has(s)) ? await repo.findPage(ctx, accountId, id) : undefined
    if (row) rows.push(row)
  }
  rows.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
  return rows.map((row) => row.id)
}

export async function findOrThrow(ctx: ServiceContext, accountId: string, id: string) {
  const row = await repo.findPage(ctx, accountId, id)
  if (!row) throw notFound(`Status page ${id} not found`)
  return row
}

export function themeColorsOf(row: Pick<StatusPagesTable, 'theme_colors'>): ThemeColors {
  return row.theme_colors ? (JSON.parse(row.theme_colors) as ThemeColors) : DEFAULT_THEME_COLORS
}

export function publicUrlOf(ctx: ServiceContext, row: Pick<StatusPagesTable, 'url'>): string {
  return `${ctx.publicUrl}/status/${row.url}`
}

// Access tokens let people outside the account read a private page.

const TOKEN_PREFIX = 'svcsp_'

export async function createAccessToken(
  ctx: ServiceContext,
  accountId: string,
  pageId: string,
  name: string,
) {
  await findOrThrow(ctx, accountId, pageId)
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url')
  const row = {
    id: randomUUID(),
    status_page_id: pageId,
    name,
    token_hash: hashApiKey(token),
    masked_token: `${TOKEN_PREFIX}${'*'.repeat(8)}${token.slice(-4)}`,
    created_at: isoNow(ctx),
  }
  // The page locked: its deletion waits for the token, or went first (404).
  await inTransaction(ctx, async (tx) => {
    if (!(await repo.lockPage(tx, pageId, 'referenced'))) throw notFound(`Status page ${pageId} not found`)
    await repo.insertAccessToken(tx, row)
  })
  return { ...toAccessToken(row), token }
}

export async function listAccessTokens(
  ctx: ServiceContext,
  accountId: string,
  pageId: string,
  page: { limit: number; offset: number },
) {
  await findOrThrow(ctx, accountId, pageId)
  const { rows, total } = await repo.listAccessTokens(ctx, pageId, page)
  return { items: rows.map(toAccessToken), total }
}

export async function deleteAccessToken(ctx: ServiceContext, accountId: string, pageId: string, id: string) {
  await findOrThrow(ctx, accountId, pageId)
  if (!(await repo.deleteAccessToken(ctx, pageId, id))) throw notFound(`Access token ${id} not found`)
}

export async function isAccessToken(ctx: ServiceContext, pageId: string, token: string): Promise<boolean> {
  if (!token.startsWith(TOKEN_PREFIX)) return false
  return repo.accessTokenExists(ctx, pageId, hashApiKey(token))
}

function toAccessToken(row: { id: string; name: string; masked_token: string; created_at: string }) {
  return { id: row.id, name: row.name, maskedToken: row.masked_token, created_at: row.created_at }
}

type PageFields = Omit<
  StatusPagesTable,
  'id' | 'account_id' | 'version' | 'content_version' | 'created_at' | 'updated_at'
>

async function normalize(
  ctx: ServiceContext,
  _accountId: string,
  id: string,
  body: StatusPageBody,
): Promise<PageFields> {
  const customDomain = body.customDomain ? normalizeDomain(ctx, body.customDomain) : null
  const bySlug = await repo.findPageBySlug(ctx, body.url)
  if (bySlug && bySlug.id !== id) throw conflictOn('body.url', `${body.url} is taken by another status page`)
  if (customDomain) {
    const byDomain = await repo.findPageByDomain(ctx, customDomain)
    if (byDomain && byDomain.id !== id)
      throw conflictOn('body.customDomain', `${customDomain} is used by another status page`)
    if (await findDashboardByDomain(ctx, customDomain))
      throw conflictOn('body.customDomain', `${customDomain} is used by a dashboard`)
  }
  return {
    name: body.name,
    url: body.url,
    custom_domain: customDomain,
    description: body.description ?? null,
    logo: body.logo ?? null,
    logo_dark: body.logoDark ?? null,
    favicon: body.favicon ?? null,
    redirect_to: body.redirectTo ?? null,
    default_theme: body.defaultTheme ?? 'AUTO',
    theme_colors: body.themeColors ? JSON.stringify(body.themeColors) : null,
    is_private: body.isPrivate ?? false,
    white_label: body.whiteLabel ?? false,
  }
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/

/**
 * A lower-case host name of at least two labels with a real top-level domain; never svc's own host.
 * Dashboards check their custom domains with it too.
 */
export function normalizeDomain(ctx: ServiceContext, value: string): string {
  const domain = value.trim().toLowerCase().replace(/\.$/, '')
  const labels = domain.split('.')
  const valid =
    domain.length <= 253 &&
    labels.length >= 2 &&
    labels.every((l) => LABEL.test(l)) &&
    TOP_LEVEL.test(labels.at(-1) ?? '')
  if (!valid) throw invalid('body.customDomain', 'must be a domain name such as status.example.com')
  if (domain === new URL(ctx.publicUrl).hostname)
    throw invalid('body.customDomain', 'must not be the address svc itself is served at')
  return domain
}

async function cardRows(
  ctx: ServiceContext,
  accountId: string,
  pageId: string,
  body: StatusPageBody,
  existing: repo.CardRow[],
  now: string,
): Promise<repo.CardRow[]> {
  const existingById = new Map(existing.map((card) => [card.id, card]))
  const seenCards = new Set<string>()
  const rows: repo.CardRow[] = []
  for (const [index, card] of body.cards.entries()) {
    const path = `body.cards.${index}`
    if (card.id !== undefined && (!existingById.has(card.id) || seenCards.has(card.id)))
      throw invalid(`${path}.id`, `is not a card of this status page: ${card.id}`)
    if (card.id) seenCards.add(card.id)
    const serviceIds = card.services.map((s) => s.id)
    const duplicate = serviceIds.findIndex((id, i) => serviceIds.indexOf(id) !== i)
    if (duplicate >= 0) throw invalid(`${path}.services.${duplicate}.id`, 'appears twice in the card')
    await servicesOfAccount(ctx, accountId, serviceIds, (i) => `${path}.services.${i}.id`)
    const previous = card.id ? existingById.get(card.id) : undefined
    const unchanged =
      previous && previous.name === card.name && previous.serviceIds.join() === serviceIds.join()
    rows.push({
      id: previous?.id ?? randomUUID(),
      status_page_id: pageId,
      name: card.name,
      position: index,
      created_at: previous?.created_at ?? now,
      updated_at: unchanged ? previous.updated_at : now,
      serviceIds,
    })
  }
  return rows
}

async function assemble(
  ctx: ServiceContext,
  accountId: string,
  rows: StatusPagesTable[],
): Promise<StatusPage[]> {
  const cardsByPage = await repo.cardsOfPages(
    ctx,
    rows.map((r) => r.id),
  )
  const serviceIds = [...new Set([...cardsByPage.values()].flat().flatMap((card) => card.serviceIds))]
  const services = new Map<string, StatusPageServicesTable>(
    (await findServices(ctx, accountId, serviceIds)).map((s) => [s.id, s]),
  )
  const checkIds = await checkIdsOfServices(ctx, serviceIds)
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    url: row.url,
    description: row.description,
    customDomain: row.custom_domain,
    themeColors: themeColorsOf(row),
    logo: row.logo,
    logoDark: row.logo_dark,
    redirectTo: row.redirect_to,
    favicon: row.favicon,
    defaultTheme: row.default_theme as StatusPageTheme,
    version: Number(row.version),
    whiteLabel: Boolean(row.white_label),
    isPrivate: Boolean(row.is_private),
    publicUrl: publicUrlOf(ctx, row),
    cards: (cardsByPage.get(row.id) ?? []).map((card) => ({
      id: card.id,
      name: card.name,
      services: card.serviceIds.flatMap((sid) => {
        const service = services.get(sid)
        return service ? [toService(service, checkIds.get(sid) ?? [])] : []
      }),
      created_at: card.created_at,
      updated_at: card.updated_at,
    })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  }))
}

async function uniquely(write: () => Promise<void>): Promise<void> {
  try {
    await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('url or customDomain is used by another status page')
    throw error
  }
}
