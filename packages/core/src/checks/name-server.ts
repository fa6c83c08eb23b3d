import { isIP } from 'node:net'

/** A DNS check's `nameServer`: where to ask, and the port written in it (null when none is). */
export interface NameServerAddress {
  host: string
  port: number | null
}

const HOST_NAME =
  /^(?=.{1,253}\.?$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/
const BRACKETED = /^\[([^\]]+)\](?::(\d{1,5}))?$/
const WITH_PORT = /^([^:]+):(\d{1,5})$/

/**
 * Reads a name server written as a host name, an IPv4 or IPv6 address, `host:port`, `ipv4:port`,
 * `[ipv6]` or `[ipv6]:port` (as the hosted product accepts it). A bare IPv6 address is an address,
 * never split at a colon. Anything else (and a port outside 1–65535) is null.
 */
export function parseNameServer(text: string): NameServerAddress | null {
  if (isIP(text)) return { host: text, port: null }
  const bracketed = BRACKETED.exec(text)
  const withPort = bracketed ? null : WITH_PORT.exec(text)
  const host = bracketed?.[1] ?? withPort?.[1] ?? text
  const portText = bracketed?.[2] ?? withPort?.[2]
  if (bracketed ? isIP(host) !== 6 : !isIP(host) && !HOST_NAME.test(host)) return null
  if (portText === undefined) return { host, port: null }
  const port = Number(portText)
  return port >= 1 && port <= 65535 ? { host, port } : null
}
