import { randomBytes } from 'node:crypto'
import { type DashboardsTable, isUniqueViolation } from '@svc/db'
import type { Selectable } from 'kysely'
import { isoNow, type ServiceContext } from '../../context.ts'
import { conflict, conflictOn, invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { findPageByDomain } from '../status-pages/page-lookups.service.ts'
import { normalizeDomain } from '../status-pages/status-pages.service.ts'
import * as repo from './dashboards.repo.ts'
import {
  type Dashboard,
  type DashboardCreateBody,
  type DashboardSettings,
  type DashboardUpdateBody,
  SETTINGS_DEFAULTS,
} from './dashboards.schemas.ts'

/** Public dashboards of an account: which checks they show (by tag) and how the page looks. */

export type DashboardRow = Selectable<DashboardsTable>

export function toDashboard(row: DashboardRow): Dashboard {
  return {
    id: Number(row.id),
    dashboardId: row.public_id,
    customUrl: row.custom_url,
    customDomain: row.custom_domain,
    tags: JSON.parse(row.tags) as string[],
    keys: [],
    ...settingsOf(row),
    created_at: row.created_at,
  }
}

export function settingsOf(row: DashboardRow): DashboardSettings {
  return { ...SETTINGS_DEFAULTS, ...(JSON.parse(row.settings) as Partial<DashboardSettings>) }
}

export async function createDashboard(ctx: ServiceContext, accountId: string, body: DashboardCreateBody) {
  const fields = await checkedFields(ctx, undefined, body)
  const row = await saving(() =>
    repo.insertDashboard(ctx, {
      public_id: randomBytes(8).toString('hex'),
      account_id: accountId,
      custom_url: fields.customUrl ?? null,
      custom_domain: fields.customDomain ?? null,
      tags: JSON.stringify(body.tags ?? []),
      settings: JSON.stringify(pickSettings(body)),
      created_at: isoNow(ctx),
      updated_at: null,
    }),
  )
  return toDashboard(row)
}

/** `type` names the column `key` is looked up in: the hosted dashboardId unless customUrl or customDomain. */
export async function findDashboard(
  ctx: ServiceContext,
  accountId: string,
  key: string,
  type?: 'customUrl' | 'customDomain',
): Promise<DashboardRow> {
  const column = type === 'customUrl' ? 'custom_url' : type === 'customDomain' ? 'custom_domain' : 'public_id'
  const value = type === 'customDomain' ? key.toLowerCase() : key
  const row = await repo.findDashboardBy(ctx, column, value, accountId)
  if (!row) throw notFound(`Dashboard ${key} not found`)
  return row
}

/** The dashboard with the hosted numeric `id` (what incidents name), or undefined. */
export function findDashboardById(ctx: ServiceContext, accountId: string, id: number) {
  return repo.findDashboardBy(ctx, 'id', id, accountId)
}

export async function listDashboards(ctx: ServiceContext, accountId: string, page: Page) {
  const { rows, total } = await repo.listDashboards(ctx, accountId, page)
  return { items: rows.map(toDashboard), total }
}

/** Changes the fields sent and keeps the rest, as the hosted update schema requires none. */
export async function updateDashboard(
  ctx: ServiceContext,
  accountId: string,
  key: string,
  body: DashboardUpdateBody,
) {
  const row = await findDashboard(ctx, accountId, key)
  const fields = await checkedFields(ctx, row.id, body)
  const updated = await saving(() =>
    repo.updateDashboard(ctx, accountId, row.id, {
      ...('customUrl' in body ? { custom_url: fields.customUrl ?? null } : {}),
      ...('customDomain' in body ? { custom_domain: fields.customDomain ?? null } : {}),
      ...(body.tags ? { tags: JSON.stringify(body.tags) } : {}),
      settings: JSON.stringify({ ...JSON.parse(row.settings), ...pickSettings(body) }),
      updated_at: isoNow(ctx),
    }),
  )
  if (!updated) throw notFound(`Dashboard ${key} not found`)
  return toDashboard(updated)
}

export async function deleteDashboard(ctx: ServiceContext, accountId: string, key: string) {
  const row = await findDashboard(ctx, accountId, key)
  if (!(await repo.deleteDashboard(ctx, accountId, row.id))) throw notFound(`Dashboard ${key} not found`)
}

/** The dashboard a public page address names, of any account: its customUrl, or its custom domain. */
export function findPublicDashboard(ctx: ServiceContext, by: 'custom_url' | 'custom_domain', value: string) {
  return repo.findDashboardBy(ctx, by, value)
}

function pickSettings(body: DashboardUpdateBody): Partial<DashboardSettings> {
  const picked: Record<string, unknown> = {}
  for (const name of Object.keys(SETTINGS_DEFAULTS)) {
    const value = (body as Record<string, unknown>)[name]
    if (value !== undefined) picked[name] = value
  }
  return picked as Partial<DashboardSettings>
}

/**
 * Refuses keys (svc has none) and a customUrl or customDomain another dashboard or status page holds;
 * answers the domain normalized.
 */
async function checkedFields(ctx: ServiceContext, ownId: number | undefined, body: DashboardUpdateBody) {
  if (body.keys && body.keys.length > 0) {
    throw invalid(
      'body.keys',
      'dashboard keys are not served: a private dashboard is viewed with an API key of an account member',
    )
  }
  // An empty domain is none: '' would otherwise be one unique value all dashboards compete for.
  const customDomain = body.customDomain ? normalizeDomain(ctx, body.customDomain) : null
  if (body.customUrl) {
    const holder = await repo.findDashboardBy(ctx, 'custom_url', body.customUrl)
    if (holder && holder.id !== ownId)
      throw conflictOn('body.customUrl', `${body.customUrl} is taken by another dashboard`)
  }
  if (customDomain) {
    const holder = await repo.findDashboardBy(ctx, 'custom_domain', customDomain)
    if ((holder && holder.id !== ownId) || (await findPageByDomain(ctx, customDomain)))
      throw conflictOn('body.customDomain', `${customDomain} is used by another dashboard or status page`)
  }
  return { customUrl: body.customUrl, customDomain }
}

/** Two saves racing for one customUrl or domain: the loser is a 409, as if it had looked second. */
async function saving<T>(save: () => Promise<T>): Promise<T> {
  try {
    return await save()
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('customUrl or customDomain is used by another dashboard')
    throw error
  }
}
