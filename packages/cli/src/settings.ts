import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

/** Where the CLI reaches the server, and as whom. */
export interface Credentials {
  apiUrl: string
  apiKey: string | undefined
  accountId: string | undefined
}

export const DEFAULT_API_URL = 'http://localhost:3000'

/** The CLI's only reader of the environment: flags win over env, env over the saved login. */
export function resolveCredentials(
  flags: { 'api-url'?: string; 'api-key'?: string; 'account-id'?: string },
  env: NodeJS.ProcessEnv = process.env,
): Credentials {
  const saved = readSavedLogin(env)
  return {
    apiUrl: (flags['api-url'] ?? env.SVC_API_URL ?? saved.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, ''),
    apiKey: flags['api-key'] ?? env.SVC_API_KEY ?? saved.apiKey,
    accountId: flags['account-id'] ?? env.SVC_ACCOUNT_ID ?? saved.accountId,
  }
}

/** `$XDG_CONFIG_HOME/svc/config.json`, else `~/.config/svc/config.json` (`%APPDATA%` on Windows). */
export function loginFile(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME ??
    (process.platform === 'win32' && env.APPDATA ? env.APPDATA : join(homedir(), '.config'))
  return join(base, 'svc', 'config.json')
}

function readSavedLogin(env: NodeJS.ProcessEnv): Partial<Credentials> {
  const file = loginFile(env)
  if (!existsSync(file)) return {}
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    const text = (key: string) => (typeof saved[key] === 'string' ? (saved[key] as string) : undefined)
    return { apiUrl: text('apiUrl'), apiKey: text('apiKey'), accountId: text('accountId') }
  } catch {
    throw new Error(`${file} is not valid JSON: fix it or run \`svc login\` again`)
  }
}

/** Saves the login readable by its owner only (0600), as it holds an API key. */
export function saveLogin(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const file = loginFile(env)
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  return file
}
