import { randomBytes, randomUUID } from 'node:crypto'
import { PRIVATE_LOCATION_ICON } from '@svc/core'
import { isUniqueViolation, type PrivateLocationsTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, conflict, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { inTransaction } from '../../transactions.ts'
import { retentionOfAccounts } from '../accounts/accounts.service.ts'
import { hashApiKey } from '../api-keys/api-keys.service.ts'
import { listGroupsOfAccount } from '../check-groups/group-lookups.service.ts'
import { listChecksOfAccount } from '../checks/check-lookups.service.ts'
import { MASKED_VALUE } from '../variables/variables.schemas.ts'
import * as repo from './private-locations.repo.ts'
import type {
  PrivateLocation,
  PrivateLocationBody,
  PrivateLocationUpdate,
} from './private-locations.schemas.ts'

/** An agent seen within this long is connected; a location with one is healthy. */
export const AGENT_LIVE_MS = 30_000
const KEY_PREFIX = 'svc_pl_'
const DAY_MS = 86_400_000
/**
 * A crashed agent's row (no goodbye) is kept this long after it was last seen, then folded into its location.
 * Exported because the tests move the clock past it.
 */
export const CRASHED_AGENT_KEPT_MS = DAY_MS
/**
 * Error events a location keeps at most, the newest: a crash loop can't fill the store within the retention.
 * Exported because the tests record past it.
 */
export const AGENT_EVENTS_KEPT = 1000

/** Location keys are random like API keys, so they are indexed by the same one-way hash. */
export const hashLocationKey = hashApiKey

export async function createLocation(ctx: ServiceContext, accountId: string, body: PrivateLocationBody) {
  refuseUnusableProxy(body.proxyUrl)
  const now = isoNow(ctx)
  const row: PrivateLocationsTable = {
    id: randomUUID(),
    account_id: accountId,
    name: body.name,
    slug_name: body.slugName,
    icon: body.icon ?? null,
    proxy_url: body.proxyUrl ?? null,
    agent_left_ms: null,
    created_at: now,
    updated_at: now,
  }
  try {
    await repo.insertLocation(ctx, row)
  } catch (error) {
    if (isUniqueViolation(error))
      throw conflict(`A private location with slugName ${body.slugName} exists already`)
    throw error
  }
  return (await describe(ctx, [row]))[0] as PrivateLocation
}

export async function getLocation(ctx: ServiceContext, accountId: string, id: string) {
  return (await describe(ctx, [await findOrThrow(ctx, accountId, id)]))[0] as PrivateLocation
}

export async function listLocations(ctx: ServiceContext, accountId: string, page: Page) {
  const { rows, total } = await repo.listLocations(ctx, accountId, page)
  return { items: await describe(ctx, rows), total }
}

/** Renaming the slug is refused while checks or groups name it (they would lose their location). */
export async function updateLocation(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  body: PrivateLocationUpdate,
) {
  refuseUnusableProxy(body.proxyUrl)
  const saved = await inTransaction(ctx, async (tx) => {
    // Exclusive: a new slug is as a deletion to what names the old one (see deleteLocation).
    const current = await repo.lockLocation(tx, accountId, id, 'exclusive')
    if (!current) throw notFound(`Private location ${id} not found`)
    const slugName = body.slugName ?? current.slug_name
    if (slugName !== current.slug_name) await refuseWhileUsed(tx, current, 'change the slugName of')
    const changes = {
      name: body.name,
      slug_name: slugName,
      icon: body.icon === undefined ? current.icon : body.icon,
      proxy_url:
        body.proxyUrl === undefined
          ? current.proxy_url
          : withStoredProxyPassword(body.proxyUrl, current.proxy_url),
      updated_at: isoNow(tx),
    }
    try {
      await repo.updateLocation(tx, id, changes)
    } catch (error) {
      if (isUniqueViolation(error))
        throw conflict(`A private location with slugName ${slugName} exists already`)
      throw error
    }
    return { ...current, ...changes }
  })
  return (await describe(ctx, [saved]))[0] as PrivateLocation
}

/**
 * Refused while checks or groups run there. The location is locked first: one being saved with it
 * commits before (and is counted), or waits and finds it gone.
 */
export async function deleteLocation(ctx: ServiceContext, accountId: string, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const row = await repo.lockLocation(tx, accountId, id, 'exclusive')
    if (!row) throw notFound(`Private location ${id} not found`)
    await refuseWhileUsed(tx, row, 'delete')
    await repo.deleteLocation(tx, id)
  })
}

/** A new key for the location's agents; `rawKey` is shown only in this answer. */
export async function createKey(ctx: ServiceContext, accountId: string, id: string) {
  await findOrThrow(ctx, accountId, id)
  const rawKey = KEY_PREFIX + randomBytes(32).toString('base64url')
  const now = isoNow(ctx)
  const row = {
    id: randomUUID(),
    private_location_id: id,
    key_hash: hashLocationKey(rawKey),
    masked_key: `${KEY_PREFIX}${'*'.repeat(8)}${rawKey.slice(-4)}`,
    created_at: now,
    updated_at: now,
  }
  // The location locked: its deletion waits for the key, or went first (404).
  await inTransaction(ctx, async (tx) => {
    if (!(await repo.lockLocation(tx, accountId, id, 'referenced')))
      throw notFound(`Private location ${id} not found`)
    await repo.insertKey(tx, row)
  })
  return { id: row.id, rawKey, maskedKey: row.masked_key, created_at: now, updated_at: now }
}

/** Revokes a key at once: agents using it are refused from their next call. */
export async function deleteKey(ctx: ServiceContext, accountId: string, id: string, keyId: string) {
  await findOrThrow(ctx, accountId, id)
  if (!(await repo.deleteKey(ctx, id, keyId))) throw notFound(`Key ${keyId} not found`)
}

/**
 * Hourly with results: error events older than their account's `resultRetentionDays` (never longer than
 * `maxRetentionDays`) or beyond their location's newest AGENT_EVENTS_KEPT go, and so do the rows of agents
 * not seen for CRASHED_AGENT_KEPT_MS (their locations' `lastSeenAt` stays). Answers how many of each went.
 */
export async function pruneAgentRecords(ctx: ServiceContext, maxRetentionDays: number) {
  const nowMs = ctx.clock.now().getTime()
  let events = 0
  for (const { accountId, resultRetentionDays } of await retentionOfAccounts(ctx)) {
    const days = Math.min(resultRetentionDays, maxRetentionDays)
    events += await repo.deleteAgentEventsBefore(
      ctx,
      accountId,
      new Date(nowMs - days * DAY_MS).toISOString(),
    )
  }
  events += await repo.deleteAgentEventsBeyond(ctx, AGENT_EVENTS_KEPT)
  const agents = await repo.deleteAgentsSeenBefore(ctx, nowMs - CRASHED_AGENT_KEPT_MS)
  return { events, agents }
}

/** The password part of `scheme://user:password@`, where a proxy URL carries credentials. */
const PROXY_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)([^@/]*)@/i

/** A proxy URL as members read it: its password reads ***masked*** (agents get it whole in their jobs). */
function maskedProxyUrl(proxyUrl: string | null): string | null {
  return proxyUrl?.replace(PROXY_PASSWORD, `$1${MASKED_VALUE}@`) ?? null
}

/** A proxy URL sent back with its password still ***masked*** keeps the stored password. */
function withStoredProxyPassword(sent: string | null, stored: string | null): string | null {
  const storedPassword = stored ? PROXY_PASSWORD.exec(stored)?.[2] : undefined
  if (!sent || storedPassword === undefined || PROXY_PASSWORD.exec(sent)?.[2] !== MASKED_VALUE) return sent
  return sent.replace(PROXY_PASSWORD, `$1${storedPassword}@`)
}

/** The schema checks the scheme only; a URL agents can't parse would fail every run of the location. */
function refuseUnusableProxy(proxyUrl: string | null | undefined): void {
  if (proxyUrl === null || proxyUrl === undefined || URL.canParse(proxyUrl)) return
  throw badRequest('body.proxyUrl must be an http:// or https:// URL', {
    errors: [{ path: 'body.proxyUrl', message: 'must be an http:// or https:// URL' }],
  })
}

async function findOrThrow(ctx: ServiceContext, accountId: string, id: string) {
  const row = await repo.findLocation(ctx, accountId, id)
  if (!row) throw notFound(`Private location ${id} not found`)
  return row
}

async function refuseWhileUsed(ctx: ServiceContext, row: PrivateLocationsTable, verb: string) {
  const names = (owner: { definition: string }) =>
    ((JSON.parse(owner.definition) as { privateLocations?: string[] }).privateLocations ?? []).includes(
      row.slug_name,
    )
  const checks = (await listChecksOfAccount(ctx, row.account_id)).filter(names).length
  const groups = (await listGroupsOfAccount(ctx, row.account_id)).filter(names).length
  if (checks + groups > 0) {
    throw conflict(
      `Can't ${verb} private location ${row.slug_name}: ${checks} check(s) and ${groups} group(s) run there; move them first`,
    )
  }
}

/** Locations as the API shows them: their keys (masked), connected agents and health. */
async function describe(ctx: ServiceContext, rows: PrivateLocationsTable[]): Promise<PrivateLocation[]> {
  const ids = rows.map((row) => row.id)
  const nowMs = ctx.clock.now().getTime()
  const [keys, agents, seen] = await Promise.all([
    repo.listKeys(ctx, ids),
    repo.listAgents(ctx, ids, nowMs - AGENT_LIVE_MS),
    repo.lastSeen(ctx, ids),
  ])
  return rows.map((row) => {
    const own = agents.filter((agent) => agent.private_location_id === row.id)
    // Agents that said goodbye have no row left: the location keeps when the last one left.
    const seenMs = [seen.find((s) => s.private_location_id === row.id)?.last_seen_ms, row.agent_left_ms]
      .filter((ms) => ms !== undefined && ms !== null)
      .map(Number)
    const lastSeenMs = seenMs.length > 0 ? Math.max(...seenMs) : undefined
    return {
      id: row.id,
      name: row.name,
      slugName: row.slug_name,
      // The hosted default: its clients read a string, and `svc import` leaves the default out.
      icon: row.icon ?? PRIVATE_LOCATION_ICON,
      proxyUrl: maskedProxyUrl(row.proxy_url),
      keys: keys
        .filter((key) => key.private_location_id === row.id)
        .map((key) => ({
          id: key.id,
          // Reads carry the masked form where the hosted schema requires `rawKey` (issue 30).
          rawKey: key.masked_key,
          maskedKey: key.masked_key,
          created_at: key.created_at,
          updated_at: key.updated_at,
        })),
      agents: own.map((agent) => ({
        id: agent.id,
        version: agent.version,
        hostname: agent.hostname,
        runningJobs: agent.running_jobs,
        startedAt: agent.started_at,
        lastSeenAt: new Date(Number(agent.last_seen_ms)).toISOString(),
      })),
      healthy: own.length > 0,
      lastSeenAt: lastSeenMs === undefined ? null : new Date(Number(lastSeenMs)).toISOString(),
      created_at: row.created_at,
      updated_at: row.updated_at,
    }
  })
}
