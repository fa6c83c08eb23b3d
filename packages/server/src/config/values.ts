// The settings' shared grammar: one error type and the plain values (numbers, ports, log settings).
import { resolve } from 'node:path'

export class ConfigError extends Error {}

/** `postgres://...` as given; unset, the embedded SQLite file in the data directory. */
export function parseDatabaseUrl(value: string | undefined, dataDir: string): string {
  if (value && !/^postgres(ql)?:\/\//.test(value)) {
    throw new ConfigError(
      'DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite store)',
    )
  }
  return value || `sqlite:${resolve(dataDir, 'svc.db')}`
}

export function parsePositiveInteger(name: string, value: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1)
    throw new ConfigError(`${name} must be a positive integer, got ${value}`)
  return number
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** pino's levels, in any case (pino itself would stop the start with a stack trace). */
export function parseLogLevel(value: string | undefined): string {
  if (!value) return 'info'
  const level = value.toLowerCase()
  if (!LOG_LEVELS.includes(level))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${value}`)
  return level
}

export function parseLogFormat(value: string | undefined, terminal: boolean): 'pretty' | 'json' {
  const format = (value ?? '').trim().toLowerCase() || 'auto'
  if (format === 'auto') return terminal ? 'pretty' : 'json'
  if (format !== 'pretty' && format !== 'json')
    throw new ConfigError(`LOG_FORMAT must be auto, pretty or json, got ${value}`)
  return format
}

export function parsePort(value: string): number {
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT must be 0-65535, got ${value}`)
  return port
}

export function parseNodeId(value: string | undefined): string | undefined {
  if (!value) return undefined
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(value)) {
    throw new ConfigError(`SVC_NODE_ID must be 1-100 letters, digits, ., _ or -, got ${value}`)
  }
  return value
}
