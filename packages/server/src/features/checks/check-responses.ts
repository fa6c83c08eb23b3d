import { applyApiCheckDefaults, type CheckAlertSettings, type CheckType } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { DEFAULT_ALERT_SETTINGS } from '../accounts/accounts.service.ts'
import * as alerting from '../alert-channels/check-subscriptions.ts'
import { privateLocationIdOf } from '../private-locations/location-keys.ts'
import * as locationLookups from '../private-locations/location-lookups.service.ts'
import { AGENT_LIVE_MS } from '../private-locations/private-locations.service.ts'
import { UNBOUND, withProjectBindings } from '../projects/project-bindings.ts'
import { publicVariables } from './check-variables.ts'
import type { AnyCheck } from './checks.schemas.ts'
import type { Definition, ResolvedCheck } from './resolve-check.ts'

/** How checks look in API responses (the store keeps their definitions; see checks.service.ts). */

/** The definition as clients see it: hidden values masked, sealed ones never leave. */
export function publicDefinition(definition: Definition): Record<string, unknown> {
  return {
    ...definition,
    ...withoutEmptyData(definition),
    environmentVariables: publicVariables(definition.environmentVariables),
  }
}

/** A TCP check that sends nothing leaves `request.data` out: the hosted schema's data is never empty. */
function withoutEmptyData(definition: Definition): { request?: object } {
  const request = (definition as { request?: { data?: unknown } }).request
  if (request?.data !== '') return {}
  const { data: _empty, ...rest } = request
  return { request: rest }
}

/**
 * The check as clients see it: its own fields, with `locations` and `frequency` as it runs them (its
 * own, else its group's, else the defaults) and its own alert settings completed with the defaults.
 */
function toResponse(ctx: ServiceContext, { row, definition, effective }: ResolvedCheck): AnyCheck {
  return {
    ...publicDefinition(definition),
    name: definition.name,
    activated: definition.activated,
    muted: definition.muted,
    locations: definition.locations ?? (row.check_type === 'HEARTBEAT' ? [] : effective.locations),
    frequency: effective.frequency,
    alertSettings: mergeAlertSettings(definition.alertSettings ?? undefined),
    id: row.id,
    checkType: row.check_type as CheckType,
    alertChannels: { email: [], webhook: [], slack: [], sms: [] }, // filled by checkResponses()
    warnings: [], // filled by withWarnings()
    projectBindings: UNBOUND, // filled by withProjectBindings()
    ...(row.heartbeat_token ? pingFieldsOf(ctx, row.heartbeat_token, definition) : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** A heartbeat's ping token and URL, at the top level and under `heartbeat` (where hosted clients read them). */
function pingFieldsOf(ctx: ServiceContext, token: string, definition: ResolvedCheck['definition']) {
  const ping = { pingToken: token, pingUrl: `${ctx.publicUrl}/ping/${token}` }
  const heartbeat = (definition as { heartbeat?: object }).heartbeat
  return { ...ping, heartbeat: { ...heartbeat, ...ping } }
}

/**
 * The check as it runs in its group: what it leaves unsaid filled in from the group (effective-check.ts),
 * and an API check's request with the group's API check defaults in it.
 */
export async function checkResponseInGroup(ctx: ServiceContext, check: ResolvedCheck): Promise<AnyCheck> {
  const response = await checkResponse(ctx, check)
  const { effective } = check
  const request = (response as { request?: Parameters<typeof applyApiCheckDefaults>[0] }).request
  return {
    ...response,
    ...(check.row.check_type === 'HEARTBEAT'
      ? {}
      : { locations: effective.locations, privateLocations: effective.privateLocations }),
    tags: effective.tags,
    environmentVariables: publicVariables(effective.environmentVariables),
    runtimeId: effective.runtimeId,
    retryStrategy: effective.retryStrategy,
    useGlobalAlertSettings: effective.useGlobalAlertSettings,
    ...(effective.alertSettings ? { alertSettings: mergeAlertSettings(effective.alertSettings) } : {}),
    ...(check.row.check_type === 'API' && request
      ? { request: applyApiCheckDefaults(request, effective.apiCheckDefaults) }
      : {}),
  }
}

/** One check as the API answers it. */
export async function checkResponse(ctx: ServiceContext, check: ResolvedCheck): Promise<AnyCheck> {
  return (await checkResponses(ctx, [check]))[0] as AnyCheck
}

/** Checks (of one account) as the API answers them: their fields, alert channels and warnings. */
export async function checkResponses(ctx: ServiceContext, checks: ResolvedCheck[]): Promise<AnyCheck[]> {
  const responses = await withWarnings(
    ctx,
    checks,
    await alerting.withAlertChannels(
      ctx,
      checks.map((check) => toResponse(ctx, check)),
    ),
  )
  return withProjectBindings(ctx, 'check', responses, (check) => check.id as string)
}

/**
 * `warnings`: what keeps a check from running as configured, e.g. a private location no agent serves
 * right now (its runs wait for one: they are not skipped).
 */
async function withWarnings(ctx: ServiceContext, checks: ResolvedCheck[], responses: AnyCheck[]) {
  const privateIds = [
    ...new Set(
      checks.flatMap((check) => check.runLocations.flatMap((key) => privateLocationIdOf(key) ?? [])),
    ),
  ]
  if (privateIds.length === 0) return responses
  const live = new Set(
    (await locationLookups.listAgents(ctx, privateIds, ctx.clock.now().getTime() - AGENT_LIVE_MS)).map(
      (agent) => agent.private_location_id,
    ),
  )
  const slugs = new Map(
    (await locationLookups.listAccountLocations(ctx, checks[0]?.row.account_id ?? '')).map((l) => [
      l.id,
      l.slug_name,
    ]),
  )
  return responses.map((response, index) => {
    const unserved = (checks[index]?.runLocations ?? [])
      .flatMap((key) => privateLocationIdOf(key) ?? [])
      .filter((id) => !live.has(id))
    const warnings = unserved.map(
      (id) =>
        `Private location ${slugs.get(id) ?? id} has no connected agent: its runs wait until one connects`,
    )
    return { ...response, warnings }
  })
}

function mergeAlertSettings(given: CheckAlertSettings | undefined) {
  const base = DEFAULT_ALERT_SETTINGS as unknown as Record<string, object | string>
  const merged: Record<string, unknown> = { ...base, ...given }
  for (const [key, value] of Object.entries(base)) {
    const own = (given as Record<string, object> | undefined)?.[key]
    if (typeof value === 'object') merged[key] = { ...value, ...own }
  }
  return merged
}
