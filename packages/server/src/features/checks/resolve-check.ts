import type { ChecksTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import * as groupLookups from '../check-groups/group-lookups.service.ts'
import { privateLocationKey } from '../private-locations/location-keys.ts'
import * as locationLookups from '../private-locations/location-lookups.service.ts'
import * as repo from './checks.repo.ts'
import {
  type EffectiveSettings,
  effectiveSettings,
  type GroupSettings,
  type OwnSettings,
} from './effective-check.ts'

/**
 * A check's definition as stored: the accepted body with schema defaults, variable values sealed when
 * hidden. Fields a group can fill in (locations, frequency, alertSettings, ...) stay absent when the
 * check said nothing, so the group's value applies (effective-check.ts).
 */
export type Definition = Record<string, unknown> &
  OwnSettings & {
    name: string
    activated: boolean
    groupId: number | null
    groupOrder: number | null
  }

/** A check with everything it runs with: its own definition and the settings its group fills in. */
export interface ResolvedCheck {
  row: ChecksTable
  definition: Definition
  effective: EffectiveSettings
  /**
   * Where it runs, as schedule rows name places: its data-center locations, then `private:<id>` for each
   * private location.
   */
  runLocations: string[]
  /** False when the check's group is deactivated. */
  groupActivated: boolean
}

/** `resolveCheck` for the checks of `ids` that exist, of any accounts, by id: a few queries for all. */
export async function resolveChecksById(
  ctx: ServiceContext,
  ids: string[],
): Promise<Map<string, ResolvedCheck>> {
  const resolved = await resolveCheckRows(ctx, await repo.findChecksByIds(ctx, [...new Set(ids)]))
  return new Map(resolved.map((check) => [check.row.id, check]))
}

/** Resolves check rows of any accounts, one group lookup per account. */
export async function resolveCheckRows(ctx: ServiceContext, rows: ChecksTable[]): Promise<ResolvedCheck[]> {
  const byAccount = new Map<string, ChecksTable[]>()
  for (const row of rows) {
    const accountRows = byAccount.get(row.account_id)
    if (accountRows) accountRows.push(row)
    else byAccount.set(row.account_id, [row])
  }
  const resolved: ResolvedCheck[] = []
  for (const [accountId, accountRows] of byAccount) {
    resolved.push(...(await resolveChecks(ctx, accountId, accountRows)))
  }
  return resolved
}

/** Loads a check's group (if any) and works out what the check runs with. */
export async function resolveCheck(ctx: ServiceContext, row: ChecksTable): Promise<ResolvedCheck> {
  return (await resolveChecks(ctx, row.account_id, [row]))[0] as ResolvedCheck
}

/** Resolves rows of one account: one lookup of its groups and private locations for all. */
export async function resolveChecks(
  ctx: ServiceContext,
  accountId: string,
  rows: ChecksTable[],
): Promise<ResolvedCheck[]> {
  const groupIds = [...new Set(rows.flatMap((row) => (row.group_id === null ? [] : [row.group_id])))]
  const groups = new Map(
    (await groupLookups.findGroups(ctx, accountId, groupIds)).map((group) => [group.id, group]),
  )
  let privateIds: Map<string, string> | undefined
  const resolved: ResolvedCheck[] = []
  for (const row of rows) {
    const definition = JSON.parse(row.definition) as Definition
    const group = row.group_id === null ? undefined : groups.get(row.group_id)
    const groupSettings = group ? (JSON.parse(group.definition) as GroupSettings) : null
    const effective = effectiveSettings(
      definition,
      groupSettings && { ...groupSettings, muted: Boolean(group?.muted) },
      { locations: ctx.locations.defaults },
    )
    if (effective.privateLocations.length > 0 && !privateIds) {
      const locations = await locationLookups.listAccountLocations(ctx, accountId)
      privateIds = new Map(locations.map((location) => [location.slug_name, location.id]))
    }
    const privateKeys = effective.privateLocations.flatMap((slug) => {
      const id = privateIds?.get(slug)
      return id ? [privateLocationKey(id)] : []
    })
    resolved.push({
      row,
      definition,
      effective,
      runLocations: row.check_type === 'HEARTBEAT' ? [] : [...effective.locations, ...privateKeys],
      groupActivated: group === undefined || Boolean(group.activated),
    })
  }
  return resolved
}
