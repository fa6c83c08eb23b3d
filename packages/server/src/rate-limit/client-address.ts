import { isIPv6 } from 'node:net'

/**
 * The unit one client is counted by: an IPv4 address, or an IPv6 address's /64 (one host usually holds
 * a whole /64, so counting single IPv6 addresses would let it rotate through them).
 */
export function addressGroupOf(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  if (mapped?.[1]) return mapped[1]
  if (!isIPv6(address)) return address
  const [head = '', tail] = address.split('::')
  const groups = (part: string | undefined) =>
    part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : []
  const left = groups(head)
  const right = groups(tail)
  const zeros = Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0')
  const full = tail === undefined ? left : [...left, ...zeros, ...right]
  const prefix = full.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16))
  return `${prefix.join(':')}::/64`
}
