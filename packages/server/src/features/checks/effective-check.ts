import { type ApiCheckDefaults, type CheckAlertSettings, checkPeriodMs, type RetryStrategy } from '@svc/core'
import type { StoredVariable } from './check-variables.ts'

export const DEFAULT_FREQUENCY = 10

/** The check fields a group can fill in, as stored (absent or null where the check said nothing). */
export interface OwnSettings {
  locations?: string[]
  privateLocations?: string[]
  frequency?: number
  /** Seconds between runs when `frequency` is 0 (a group's frequency is never 0). */
  frequencyOffset?: number
  tags: string[]
  environmentVariables: StoredVariable[]
  alertSettings?: CheckAlertSettings | null
  useGlobalAlertSettings?: boolean
  runtimeId?: string | null
  retryStrategy?: RetryStrategy | null
  doubleCheck?: boolean
  muted: boolean
}

/** Setup and teardown of API checks, as a check or group stores them (null or absent: none). */
export interface ApiScriptSettings {
  setupSnippetId?: number | null
  tearDownSnippetId?: number | null
  localSetupScript?: string | null
  localTearDownScript?: string | null
}

/** A group's stored definition: what its checks inherit (API.md "check groups"). */
export interface GroupSettings extends ApiScriptSettings {
  locations: string[]
  privateLocations?: string[]
  frequency: number | null
  tags: string[]
  environmentVariables: StoredVariable[]
  alertSettings?: CheckAlertSettings
  useGlobalAlertSettings?: boolean
  runtimeId: string | null
  retryStrategy: RetryStrategy | null
  muted?: boolean
  apiCheckDefaults?: ApiCheckDefaults
}

/** What a check runs and alerts with once its group and the deployment's defaults are applied. */
export interface EffectiveSettings {
  locations: string[]
  /** Slugs of the account's private locations the check also runs in. */
  privateLocations: string[]
  frequency: number
  /** Milliseconds between runs: `frequency` minutes, or `frequencyOffset` seconds when it is 0. */
  periodMs: number
  /** The check's tags and its group's. */
  tags: string[]
  /** Group variables overridden by the check's (account variables are beneath both, added at run time). */
  environmentVariables: StoredVariable[]
  /** Whose alert settings apply: the account's when `useGlobalAlertSettings`, else these. */
  useGlobalAlertSettings: boolean
  alertSettings: CheckAlertSettings | null
  /** Null: the account's default runtime. */
  runtimeId: string | null
  /** Null: no retries. The deprecated `doubleCheck` becomes one immediate retry elsewhere. */
  retryStrategy: RetryStrategy | null
  muted: boolean
  /** What the group gives its API checks' requests (core's applyApiCheckDefaults). */
  apiCheckDefaults: ApiCheckDefaults | null
  /** The group's setup and teardown of its API checks, run around the check's own (runs/api-scripts.ts). */
  groupApiScripts: ApiScriptSettings | null
}

/** One immediate retry in another location: what the deprecated `doubleCheck: true` means. */
export const DOUBLE_CHECK_STRATEGY: RetryStrategy = {
  type: 'SINGLE_RETRY',
  baseBackoffSeconds: 0,
  maxRetries: 1,
  maxDurationSeconds: 600,
  sameRegion: false,
}

/**
 * Fills in what the check leaves unsaid from its group, then from the deployment: a check's own value
 * always wins; tags and variables merge. Alert settings are the check's own when it turns
 * `useGlobalAlertSettings` off, else its group's when the group does, else the account's. (Alert
 * channel subscriptions live with the channels: alert-channels/check-subscriptions.ts.)
 */
export function effectiveSettings(
  check: OwnSettings,
  group: GroupSettings | null,
  defaults: { locations: string[] },
): EffectiveSettings {
  const groupLocations = group && group.locations.length > 0 ? group.locations : undefined
  const checkKeys = new Set(check.environmentVariables.map((v) => v.key))
  const alerting =
    check.useGlobalAlertSettings === false
      ? { useGlobalAlertSettings: false, alertSettings: check.alertSettings ?? null }
      : group?.useGlobalAlertSettings === false
        ? { useGlobalAlertSettings: false, alertSettings: group.alertSettings ?? null }
        : { useGlobalAlertSettings: true, alertSettings: null }
  const frequency = check.frequency ?? group?.frequency ?? DEFAULT_FREQUENCY
  return {
    locations: check.locations ?? groupLocations ?? defaults.locations,
    privateLocations: check.privateLocations?.length
      ? check.privateLocations
      : (group?.privateLocations ?? []),
    frequency,
    periodMs: checkPeriodMs({ frequency, frequencyOffset: check.frequencyOffset }),
    tags: effectiveTags(check.tags, group?.tags),
    environmentVariables: [
      ...(group?.environmentVariables ?? []).filter((v) => !checkKeys.has(v.key)),
      ...check.environmentVariables,
    ],
    ...alerting,
    runtimeId: check.runtimeId ?? group?.runtimeId ?? null,
    retryStrategy:
      check.retryStrategy ??
      group?.retryStrategy ??
      ((check.doubleCheck ?? true) ? DOUBLE_CHECK_STRATEGY : null),
    muted: check.muted || Boolean(group?.muted),
    apiCheckDefaults: group?.apiCheckDefaults ?? null,
    groupApiScripts: group
      ? {
          setupSnippetId: group.setupSnippetId,
          tearDownSnippetId: group.tearDownSnippetId,
          localSetupScript: group.localSetupScript,
          localTearDownScript: group.localTearDownScript,
        }
      : null,
  }
}

/** A check's tags and its group's: what maintenance windows match. */
export function effectiveTags(own: string[], group: string[] | undefined): string[] {
  return [...new Set([...own, ...(group ?? [])])]
}
