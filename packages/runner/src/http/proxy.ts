import { connect as connectTcp, type LookupFunction, type Socket } from 'node:net'
import { type ConnectionOptions, connect as connectTls, type TLSSocket } from 'node:tls'

/** A forward proxy for HTTP checks, as HTTP_PROXY / HTTPS_PROXY / NO_PROXY describe one. */
export interface ProxySettings {
  httpProxy?: string
  /** For https:// targets; HTTP_PROXY when unset. */
  httpsProxy?: string
  /** Comma- or space-separated hosts (`example.com`, `.example.com`, `*.example.com`, `host:port`, `*`). */
  noProxy?: string
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 }

/** The proxy a request to `target` goes through, or null for a direct connection. */
export function proxyFor(target: URL, proxy: ProxySettings | undefined): URL | null {
  if (!proxy) return null
  const chosen = target.protocol === 'https:' ? proxy.httpsProxy || proxy.httpProxy : proxy.httpProxy
  if (!chosen || bypassed(target, proxy.noProxy ?? '')) return null
  return new URL(chosen)
}

function bypassed(target: URL, noProxy: string): boolean {
  const host = target.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase()
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase()
    if (!entry) continue
    if (entry === '*') return true
    // `host`, `host:port`, `[v6]:port`, or a bare IPv6 address (more than one colon, no port).
    const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(entry)
    const colons = entry.split(':').length - 1
    const [name = '', entryPort] = bracketed
      ? [bracketed[1], bracketed[2]]
      : colons === 1
        ? entry.split(':')
        : [entry, undefined]
    if (entryPort && Number(entryPort) !== port) continue
    const bare = name.replace(/^\*?\./, '')
    if (host === bare || host.endsWith(`.${bare}`)) return true
  }
  return false
}

/** `Proxy-Authorization` for a proxy URL with credentials. */
export function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username) return {}
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` }
}

/** A plain (or TLS, for an https:// proxy) connection to the proxy itself. */
export function connectToProxy(proxy: URL, lookup: LookupFunction | undefined): Socket {
  const port = Number(proxy.port) || (DEFAULT_PORTS[proxy.protocol] as number)
  const host = proxy.hostname.replace(/^\[(.*)\]$/, '$1')
  return proxy.protocol === 'https:'
    ? connectTls({ host, port, servername: host, ...(lookup ? { lookup } : {}) })
    : connectTcp({ host, port, ...(lookup ? { lookup } : {}) })
}

interface TunnelTarget {
  host: string
  port: number
  servername: string
  rejectUnauthorized: boolean
  /** A client certificate to present (mTLS), and CAs to trust. */
  credentials?: ConnectionOptions
}

/**
 * Opens a CONNECT tunnel to `host:port` through `socket` (connected to the proxy) and TLS inside it;
 * `done` gets the TLS socket, or the reason the proxy or the handshake failed.
 */
export function tunnelTls(
  socket: Socket,
  proxy: URL,
  target: TunnelTarget,
  done: (error: Error | null, secure?: TLSSocket) => void,
): void {
  const authority = target.host.includes(':')
    ? `[${target.host}]:${target.port}`
    : `${target.host}:${target.port}`
  let settled = false
  const finish = (error: Error | null, secure?: TLSSocket) => {
    if (settled) return
    settled = true
    if (error) socket.destroy()
    done(error, secure)
  }
  const onClose = () => finish(new Error('The proxy closed the connection'))
  socket.once('error', (error) => finish(error))
  socket.once('close', onClose)
  const start = () => {
    const head = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`]
    for (const [name, value] of Object.entries(proxyAuthorization(proxy))) head.push(`${name}: ${value}`)
    socket.write(`${head.join('\r\n')}\r\n\r\n`)
  }
  if (proxy.protocol === 'https:') socket.once('secureConnect', start)
  else socket.once('connect', start)
  let answer = Buffer.alloc(0)
  const onData = (chunk: Buffer) => {
    answer = Buffer.concat([answer, chunk])
    const end = answer.indexOf('\r\n\r\n')
    if (end === -1) {
      if (answer.length > 16_384) finish(new Error('The proxy sent an oversized CONNECT answer'))
      return
    }
    socket.off('data', onData)
    socket.pause()
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer.subarray(0, end).toString('latin1'))?.[1])
    if (status !== 200) {
      finish(new Error(`The proxy refused the tunnel to ${authority} (HTTP ${status || '?'})`))
      return
    }
    const rest = answer.subarray(end + 4)
    if (rest.length > 0) socket.unshift(rest)
    socket.off('close', onClose)
    const secure = tlsInTunnel(socket, target)
    secure.once('secureConnect', () => finish(null, secure))
    secure.once('error', (error) => finish(error))
  }
  socket.on('data', onData)
}

/** TLS to the target over the open tunnel. */
function tlsInTunnel(socket: Socket, target: TunnelTarget): TLSSocket {
  return connectTls({
    socket,
    // `host` is what the certificate is checked against when there is no SNI name (an IP target).
    host: target.host,
    servername: target.servername,
    rejectUnauthorized: target.rejectUnauthorized,
    ...target.credentials,
    ALPNProtocols: ['http/1.1'],
  })
}
