import { isIPv4 } from 'node:net'
import {
  type Assertion,
  CHECK_BODIES,
  CHECK_TYPES,
  type CheckEnvironmentVariable,
  type CheckType,
  EXTENDED_MAX_RESPONSE_TIME_MS,
  frequencyOffsetProblem,
  MAX_RESPONSE_TIME_MS,
  parseNameServer,
  refusedHeaderValue,
  refusedRequestHeader,
  ScriptProjectError,
  type ScriptProjectSource,
  scriptProjectOf,
} from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { invalid } from '../../http/errors.ts'
import { getAccount } from '../accounts/accounts.service.ts'
import * as alerting from '../alert-channels/check-subscriptions.ts'
import * as groupLookups from '../check-groups/group-lookups.service.ts'
import * as locationLookups from '../private-locations/location-lookups.service.ts'
import { assertSnippetsOfAccount } from '../snippets/snippets.service.ts'
import { servicesOfAccount } from '../status-page-services/status-page-services.service.ts'
import { type StoredVariable, sealVariables } from './check-variables.ts'
import type { Definition } from './resolve-check.ts'

/** The rules a check's definition follows beyond its schema, applied on every save. */

const PERIOD_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const
const RESPONSE_TIME_CHECK_TYPES = CHECK_TYPES.filter(
  (type) => 'maxResponseTime' in CHECK_BODIES[type].properties,
)
/** Fields with a schema default that a check in a group inherits when the client didn't send them. */
const INHERITED_WHEN_NOT_SENT = ['frequency'] as const
const API_SCRIPT_FIELDS = ['setupSnippetId', 'tearDownSnippetId', 'localSetupScript', 'localTearDownScript']

/**
 * What a save of many checks in one transaction has already found (and locked): each group, private
 * location and alert channel is then looked up once for all of them, not once per check.
 */
export interface DefinitionLookups {
  groups: Map<number, boolean>
  privateLocations: Set<string>
  channels: Set<number>
}

export function newDefinitionLookups(): DefinitionLookups {
  return { groups: new Map(), privateLocations: new Set(), channels: new Set() }
}

/** Applies defaults and the rules a schema can't express; seals hidden variable values. */
export async function normalizeDefinition(
  ctx: ServiceContext,
  accountId: string,
  checkType: CheckType,
  body: Record<string, unknown>,
  previousVariables: StoredVariable[],
  sentFields: ReadonlySet<string>,
  lookups: DefinitionLookups = newDefinitionLookups(),
): Promise<Definition> {
  const definition = withDefaults(ctx, checkType, body, sentFields)
  await assertReferences(ctx, accountId, checkType, definition, body, lookups)
  await assertTypeRules(ctx, accountId, checkType, definition)
  definition.environmentVariables = sealVariables(
    ctx,
    (body.environmentVariables as CheckEnvironmentVariable[] | undefined) ?? [],
    previousVariables,
  )
  return definition as Definition
}

/** The body with its defaults filled in and the fields stored elsewhere left out. */
function withDefaults(
  ctx: ServiceContext,
  checkType: CheckType,
  body: Record<string, unknown>,
  sentFields: ReadonlySet<string>,
): Record<string, unknown> {
  const definition = { ...body } as Record<string, unknown>
  for (const field of INHERITED_WHEN_NOT_SENT) if (!sentFields.has(field)) delete definition[field]
  definition.tags = [...new Set((body.tags as string[] | undefined) ?? [])]
  if (checkType === 'HEARTBEAT') {
    // Judged from pings, never run: places are taken (as hosted products take them) and dropped.
    definition.locations = []
    definition.privateLocations = []
  } else {
    definition.privateLocations = [...new Set((body.privateLocations as string[] | undefined) ?? [])]
    if (body.locations !== undefined) definition.locations = servedLocations(ctx, body.locations as string[])
  }
  // Subscriptions live in the alert channels' table (see alert-channels/check-subscriptions.ts).
  delete definition.alertChannelSubscriptions
  definition.alertSettings = body.alertSettings ?? null
  definition.groupId = body.groupId ?? null
  definition.groupOrder = body.groupOrder ?? null
  definition.retryStrategy = body.retryStrategy ?? null
  definition.triggerIncident = body.triggerIncident ?? null
  if ('runtimeId' in CHECK_BODIES[checkType].properties) definition.runtimeId = body.runtimeId ?? null
  return definition
}

/** The private locations, channels, group and status page service it names are the account's. */
async function assertReferences(
  ctx: ServiceContext,
  accountId: string,
  checkType: CheckType,
  definition: Record<string, unknown>,
  body: Record<string, unknown>,
  lookups: DefinitionLookups,
): Promise<void> {
  const privateLocations = definition.privateLocations as string[]
  await assertPrivateLocations(
    ctx,
    accountId,
    privateLocations.filter((slug) => !lookups.privateLocations.has(slug)),
  )
  for (const slug of privateLocations) lookups.privateLocations.add(slug)
  if (
    checkType !== 'HEARTBEAT' &&
    (definition.locations as string[] | undefined)?.length === 0 &&
    privateLocations.length === 0
  ) {
    throw invalid('body.locations', 'must name at least one location when privateLocations is empty')
  }
  const subscriptions = subscriptionsIn(body)?.filter((s) => !lookups.channels.has(s.alertChannelId))
  await alerting.assertChannelsOfAccount(ctx, accountId, subscriptions, 'body.alertChannelSubscriptions')
  for (const subscription of subscriptions ?? []) lookups.channels.add(subscription.alertChannelId)
  // Inside the save's transaction, what it names stays until it commits (or, deleted meanwhile, is unknown).
  if (
    definition.groupId !== null &&
    !(await groupFound(ctx, accountId, definition.groupId as number, lookups))
  ) {
    throw invalid('body.groupId', `check group ${definition.groupId} not found`)
  }
  const trigger = definition.triggerIncident as { serviceId: string } | null
  if (trigger) {
    await servicesOfAccount(ctx, accountId, [trigger.serviceId], () => 'body.triggerIncident.serviceId')
  }
}

/** The rules of its type a schema can't express (URLs, headers, name servers, thresholds, scripts). */
async function assertTypeRules(
  ctx: ServiceContext,
  accountId: string,
  checkType: CheckType,
  definition: Record<string, unknown>,
): Promise<void> {
  if (checkType === 'API' || checkType === 'URL') checkRequestUrl((definition.request as { url: string }).url)
  if (checkType === 'URL') definition.request = urlRequestOf(definition.request as Record<string, unknown>)
  if (checkType === 'API') {
    checkRequestHeaders((definition.request as { headers?: { key: string; value: string }[] }).headers ?? [])
    await normalizeApiScripts(ctx, accountId, definition)
  }
  if (checkType === 'DNS') checkNameServer((definition.request as { nameServer?: string | null }).nameServer)
  checkAssertionPatterns((definition.request as { assertions?: Assertion[] } | undefined)?.assertions ?? [])
  if (RESPONSE_TIME_CHECK_TYPES.includes(checkType)) await checkResponseTimes(ctx, accountId, definition)
  if (
    checkType === 'ICMP' &&
    Number(definition.degradedPacketLossThreshold) > Number(definition.maxPacketLossThreshold)
  ) {
    throw invalid('body.degradedPacketLossThreshold', 'must not exceed maxPacketLossThreshold')
  }
  if (checkType === 'ICMP') checkPingFamily(definition.request as { hostname: string; ipFamily?: string })
  const offsetProblem = frequencyOffsetProblem(definition)
  if (offsetProblem) throw invalid('body.frequencyOffset', offsetProblem)
  if (checkType === 'HEARTBEAT') checkHeartbeat(definition.heartbeat as Record<string, number | string>)
  if (checkType === 'BROWSER' || checkType === 'MULTI_STEP' || checkType === 'AUTOMATION') {
    checkScriptProject(checkType, definition)
  }
}

async function groupFound(ctx: ServiceContext, accountId: string, id: number, lookups: DefinitionLookups) {
  let found = lookups.groups.get(id)
  if (found === undefined) {
    found = (await groupLookups.lockGroup(ctx, accountId, id, 'referenced')) !== undefined
    lookups.groups.set(id, found)
  }
  return found
}

/**
 * Each slug must name one of the account's private locations. In a transaction, they stay (a deletion
 * or a new slug waits for it to end) and one deleted or renamed meanwhile is unknown.
 */
export async function assertPrivateLocations(ctx: ServiceContext, accountId: string, slugs: string[]) {
  if (slugs.length === 0) return
  const known = await locationLookups.lockReferencedSlugs(ctx, accountId, slugs)
  const unknown = slugs.find((slug) => !known.has(slug))
  if (unknown) throw invalid('body.privateLocations', `unknown private location ${unknown}`)
}

function servedLocations(ctx: ServiceContext, locations: string[]): string[] {
  const unique = [...new Set(locations)]
  const unserved = unique.find((location) => !ctx.locations.served.includes(location))
  if (unserved) {
    throw invalid(
      'body.locations',
      `location ${unserved} is not served here (served: ${ctx.locations.served.join(', ')})`,
    )
  }
  return unique
}

async function checkResponseTimes(
  ctx: ServiceContext,
  accountId: string,
  definition: Record<string, unknown>,
) {
  const degraded = definition.degradedResponseTime as number
  const max = definition.maxResponseTime as number
  if (max > MAX_RESPONSE_TIME_MS) {
    const account = await getAccount(ctx, accountId)
    if (!account.settings.extendedUptimeResponseTime || max > EXTENDED_MAX_RESPONSE_TIME_MS) {
      throw invalid(
        'body.maxResponseTime',
        `must be at most ${MAX_RESPONSE_TIME_MS} ms (${EXTENDED_MAX_RESPONSE_TIME_MS} with the account's extendedUptimeResponseTime)`,
      )
    }
  }
  if (degraded > max) throw invalid('body.degradedResponseTime', 'must not exceed maxResponseTime')
}

/** A URL as written must parse; one with `{{VARIABLES}}` is judged at run time, once they are filled in. */
function checkRequestUrl(url: string) {
  if (!url.includes('{{') && !URL.canParse(url)) {
    throw invalid('body.request.url', 'must be a valid http(s) URL')
  }
}

/**
 * Headers svc's HTTP client would refuse or change are refused as for webhook channels (the rule of
 * @svc/core); a name with `{{VARIABLES}}` is judged at run time, once they are filled in. A control
 * character in a value is refused too, as for webhook channels (which send one a variable brings in as a
 * space, where a check's run fails): a check sends its request as written or not at all.
 */
/** A URL monitor sends GET: the hosted CLI names it, any other method is an API check's job. */
function urlRequestOf({ method, ...request }: Record<string, unknown>): Record<string, unknown> {
  if (method !== undefined && String(method).toUpperCase() !== 'GET') {
    throw invalid(
      'body.request.method',
      `is ${String(method)}: a URL monitor only sends GET requests (use an API check for other methods)`,
    )
  }
  return request
}

function checkRequestHeaders(headers: { key: string; value: string }[]) {
  headers.forEach(({ key, value }, index) => {
    const refusal =
      (key.includes('{{') ? null : refusedRequestHeader(key, value)) ?? refusedHeaderValue(key, value)
    if (refusal) throw invalid(`body.request.headers.${index}.${refusal.field}`, refusal.message)
  })
}

/** An explicit IPv6 for an IPv4 address can't be pinged (the runner says so too, for values from variables). */
function checkPingFamily({ hostname, ipFamily }: { hostname: string; ipFamily?: string }) {
  if (ipFamily === 'IPv6' && isIPv4(hostname))
    throw invalid('body.request.ipFamily', `is IPv6 but hostname ${hostname} is an IPv4 address`)
}

/** An API check's setup and teardown: null when not set (as the hosted schema answers), snippets the account's. */
async function normalizeApiScripts(
  ctx: ServiceContext,
  accountId: string,
  definition: Record<string, unknown>,
) {
  for (const field of API_SCRIPT_FIELDS) definition[field] = definition[field] ?? null
  await assertSnippetsOfAccount(ctx, accountId, {
    'body.setupSnippetId': definition.setupSnippetId as number | null,
    'body.tearDownSnippetId': definition.tearDownSnippetId as number | null,
  })
}

/**
 * A name server is a host name or IP address, optionally with a port (`host:port`, `[IPv6]:port`); one
 * with `{{VARIABLES}}` is judged at run time.
 */
function checkNameServer(nameServer: string | null | undefined) {
  if (nameServer && !nameServer.includes('{{') && !parseNameServer(nameServer)) {
    throw invalid(
      'body.request.nameServer',
      'must be a host name or IP address, optionally with a port (host:port, [IPv6]:port)',
    )
  }
}

/**
 * An assertion's `regex`, and its `target` when it `MATCHES_REGEX`, must compile as runs compile them
 * (`new RegExp(pattern)`); one with `{{VARIABLES}}` is judged at run time.
 */
function checkAssertionPatterns(assertions: Assertion[]) {
  assertions.forEach((assertion, index) => {
    const patterns = {
      regex: assertion.regex,
      target: assertion.comparison === 'MATCHES_REGEX' ? assertion.target : undefined,
    }
    for (const [field, pattern] of Object.entries(patterns)) {
      if (pattern == null || pattern.includes('{{')) continue
      try {
        new RegExp(pattern)
      } catch {
        throw invalid(`body.request.assertions.${index}.${field}`, 'must be a valid regular expression')
      }
    }
  })
}

function checkHeartbeat(heartbeat: Record<string, number | string>) {
  const seconds = (value: string, unit: string) =>
    Number(heartbeat[value]) * PERIOD_SECONDS[heartbeat[unit] as keyof typeof PERIOD_SECONDS]
  const yearSeconds = 365 * 86_400
  const period = seconds('period', 'periodUnit')
  if (period < 30 || period > yearSeconds)
    throw invalid('body.heartbeat.period', 'must be between 30 seconds and 365 days')
  if (seconds('grace', 'graceUnit') > yearSeconds)
    throw invalid('body.heartbeat.grace', 'must be at most 365 days')
}

/** A script check must be a project its runs can run (the runner's own rule, from @svc/core). */
function checkScriptProject(
  checkType: 'BROWSER' | 'MULTI_STEP' | 'AUTOMATION',
  definition: ScriptProjectSource,
) {
  try {
    scriptProjectOf(checkType, definition)
  } catch (error) {
    if (error instanceof ScriptProjectError) throw invalid(`body.${error.field}`, error.reason)
    throw error
  }
}

const subscriptionsIn = (body: Record<string, unknown>) =>
  body.alertChannelSubscriptions as alerting.SubscriptionInput[] | undefined
