import { isIP } from 'node:net'
import type { ProxySettings } from '../http/proxy.ts'

/** Playwright's `proxy` option of a browser context or an APIRequestContext. */
export interface PlaywrightProxy {
  server: string
  bypass?: string
  username?: string
  password?: string
}

/**
 * The proxy of a script run, in Playwright's form: HTTPS_PROXY (else HTTP_PROXY) for every request,
 * since Playwright takes one proxy per context; credentials apart from the server; NO_PROXY as `bypass`.
 * Null for a direct run (no proxy, or NO_PROXY `*`).
 */
export function playwrightProxyOf(proxy: ProxySettings | undefined): PlaywrightProxy | null {
  const chosen = proxy?.httpsProxy || proxy?.httpProxy
  if (!chosen) return null
  const entries = noProxyEntries(proxy?.noProxy ?? '')
  if (entries.includes('*')) return null
  const url = new URL(chosen)
  const bypass = [...new Set(entries.flatMap(bypassRulesOf))].join(',')
  return {
    server: `${url.protocol}//${url.host}`,
    ...(bypass ? { bypass } : {}),
    ...(url.username
      ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
      : {}),
  }
}

/** What a run's results must not show of its proxy: the password, and `user:password` (Basic auth). */
export function proxySecretsOf(proxy: PlaywrightProxy | null): string[] {
  if (!proxy?.password) return []
  return [proxy.password, `${proxy.username ?? ''}:${proxy.password}`]
}

function noProxyEntries(noProxy: string): string[] {
  return noProxy
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean)
}

/**
 * Chromium's rules for one NO_PROXY entry, with NO_PROXY's meaning (a name, its subdomains too):
 * Chromium matches `example.com` exactly and `.example.com` as `*.example.com`; Playwright's `request`
 * matches `.example.com` as a suffix of the host. IPv6 addresses are bracketed; CIDR ranges pass as they are.
 */
function bypassRulesOf(entry: string): string[] {
  if (entry.includes('/')) return [entry]
  if (isIP(entry) === 6) return [`[${entry}]`]
  const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(entry)
  if (bracketed) return [entry]
  const [host = '', port] = entry.split(':')
  const name = host.replace(/^\*?\./, '')
  if (!name) return []
  const suffix = port ? `:${port}` : ''
  if (isIP(name)) return [`${name}${suffix}`]
  return [`${name}${suffix}`, `.${name}${suffix}`]
}
