// Settings of where and how checks run: locations, runner locations, the script sandbox, deployment leases.
import { isAbsolute, resolve } from 'node:path'
import { SCRIPT_SANDBOX_MODES, type ScriptSandboxMode } from '@svc/runner'
import { ConfigError, parsePositiveInteger } from './values.ts'

export function parseLocations(served = 'local', defaults?: string) {
  const list = (value: string) => [
    ...new Set(
      value
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    ),
  ]
  const servedList = list(served)
  if (servedList.length === 0 || servedList.some((l) => !/^[a-z0-9-]{1,64}$/.test(l))) {
    throw new ConfigError('SVC_LOCATIONS must be a comma-separated list of names of a-z, 0-9 and -')
  }
  if (servedList.includes('heartbeat'))
    throw new ConfigError('SVC_LOCATIONS: "heartbeat" is reserved for heartbeat deadlines')
  const defaultList = defaults ? list(defaults) : servedList
  const unknown = defaultList.filter((l) => !servedList.includes(l))
  if (unknown.length > 0)
    throw new ConfigError(`SVC_DEFAULT_LOCATIONS names unserved locations: ${unknown.join(', ')}`)
  return { served: servedList, defaults: defaultList }
}

/** A comma-separated subset of the served locations; `none` for none; unset for all of them. */
export function parseRunnerLocations(value: string | undefined, served: string[]): string[] {
  if (value === undefined || value.trim() === '') return [...served]
  if (value.trim() === 'none') return []
  const list = [
    ...new Set(
      value
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
    ),
  ]
  const unserved = list.filter((l) => !served.includes(l))
  if (unserved.length > 0) {
    throw new ConfigError(
      `runner locations must be served (SVC_LOCATIONS=${served.join(',')}); not served: ${unserved.join(', ')}`,
    )
  }
  return list
}

export function parseScriptSandbox(value: string | undefined): ScriptSandboxMode {
  const mode = (value ?? '').trim().toLowerCase() || 'auto'
  if (!(SCRIPT_SANDBOX_MODES as readonly string[]).includes(mode))
    throw new ConfigError(`SVC_SCRIPT_SANDBOX must be auto, on or off, got ${value}`)
  return mode as ScriptSandboxMode
}

/** Colon-separated absolute paths (as in PATH), hidden from scripts besides the data directory. */
export function parseHiddenPaths(value: string | undefined): string[] {
  const paths = (value ?? '').split(':').filter((path) => path.trim())
  const relative = paths.find((path) => !isAbsolute(path))
  if (relative) throw new ConfigError(`SVC_SCRIPT_HIDDEN_PATHS must list absolute paths, got ${relative}`)
  return paths.map((path) => resolve(path))
}

/**
 * PostgreSQL renews a running deployment's lease every third of it; SQLite can't while the apply holds
 * the only writer, but there one process serves, and it knows its own deployments.
 */
export function parseDeploymentLease(value: string | undefined): number {
  const seconds = parsePositiveInteger('SVC_DEPLOYMENT_LEASE_SECONDS', value ?? '600')
  if (seconds < 3) throw new ConfigError('SVC_DEPLOYMENT_LEASE_SECONDS must be at least 3')
  return seconds * 1000
}

export function parseRunnerLease(value: string | undefined): number {
  const seconds = parsePositiveInteger('SVC_RUNNER_LEASE_SECONDS', value ?? '30')
  if (seconds < 3) throw new ConfigError('SVC_RUNNER_LEASE_SECONDS must be at least 3')
  return seconds * 1000
}

/** The production default of SVC_RESULT_COMMIT_DELAY_MS; the benches run with it too. */
export const DEFAULT_RESULT_COMMIT_DELAY_MS = 1000

/**
 * 0 (commit each result at once) to 1,000 ms: how long a quiet pass may wait for company. A result that
 * may alert never waits; a recovery's notification comes this much later at most.
 */
export function parseResultCommitDelay(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_RESULT_COMMIT_DELAY_MS
  const ms = Number(value)
  if (!Number.isInteger(ms) || ms < 0 || ms > 1000)
    throw new ConfigError(`SVC_RESULT_COMMIT_DELAY_MS must be an integer from 0 to 1000, got ${value}`)
  return ms
}
