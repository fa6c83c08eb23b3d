import type { ParseArgsOptionsConfig } from 'node:util'
import type { ApiClient } from './api-client.ts'
import type { Output } from './output.ts'

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>

export interface CommandContext {
  out: Output
  values: Values
  positionals: string[]
  cwd: string
  env: NodeJS.ProcessEnv
  /** The API client of the resolved credentials (flags, env, saved login). */
  client(): ApiClient
  /** Asks a yes/no question on the terminal; false when stdin is not a terminal. */
  confirm(question: string): Promise<boolean>
}

export interface Command {
  /** One or two words: `deploy`, `checks list`. */
  name: string
  summary: string
  usage?: string
  options?: ParseArgsOptionsConfig
  /** Resolves with the exit code. */
  run(ctx: CommandContext): Promise<number>
}

export function stringValue(values: Values, key: string): string | undefined {
  const value = values[key]
  return typeof value === 'string' ? value : undefined
}

export function listValue(values: Values, key: string): string[] {
  const value = values[key]
  if (Array.isArray(value)) return value.map(String)
  return typeof value === 'string' ? [value] : []
}
