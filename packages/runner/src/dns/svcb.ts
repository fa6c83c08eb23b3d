/**
 * SVCB / HTTPS RDATA (RFC 9460 §2.2) in its presentation format, as `dig` shows it:
 * `1 . alpn="h2,h3" ipv4hint=104.16.132.229 ech=AEX+…`, or `0 target.example.` (AliasMode).
 * SvcPriority (u16), TargetName (an uncompressed domain name), then SvcParams (key u16, length u16,
 * value). RDATA that doesn't decode reads in the generic form of RFC 3597 (`\# 3 010203`).
 */
export function presentSvcb(rdata: Uint8Array): string {
  try {
    return decodeSvcb(rdata)
  } catch {
    return genericRdata(rdata)
  }
}

const KEY_NAMES = [
  'mandatory',
  'alpn',
  'no-default-alpn',
  'port',
  'ipv4hint',
  'ech',
  'ipv6hint',
  'dohpath',
  'ohttp',
]

function decodeSvcb(rdata: Uint8Array): string {
  const view = new DataView(rdata.buffer, rdata.byteOffset, rdata.byteLength)
  const need = (offset: number, length: number) => {
    if (offset + length > rdata.length) throw new Error('SVCB RDATA ends early')
  }
  need(0, 2)
  const priority = view.getUint16(0)
  const { name, end } = readName(rdata, 2)
  const parts = [String(priority), name]
  let offset = end
  let previousKey = -1
  while (offset < rdata.length) {
    need(offset, 4)
    const key = view.getUint16(offset)
    const length = view.getUint16(offset + 2)
    need(offset + 4, length)
    // Keys are strictly increasing on the wire (§2.2); anything else is malformed.
    if (key <= previousKey) throw new Error('SVCB keys out of order')
    previousKey = key
    parts.push(presentParam(key, rdata.subarray(offset + 4, offset + 4 + length)))
    offset += 4 + length
  }
  return parts.join(' ')
}

function keyName(key: number): string {
  return KEY_NAMES[key] ?? `key${key}`
}

function presentParam(key: number, value: Uint8Array): string {
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength)
  switch (key) {
    case 0: {
      // mandatory: a list of keys
      if (value.length === 0 || value.length % 2) throw new Error('bad mandatory')
      const keys: string[] = []
      for (let i = 0; i < value.length; i += 2) keys.push(keyName(view.getUint16(i)))
      return `mandatory=${keys.join(',')}`
    }
    case 1: {
      // alpn: length-prefixed protocol ids
      const ids: string[] = []
      for (let i = 0; i < value.length; ) {
        const length = value[i] ?? 0
        if (length === 0 || i + 1 + length > value.length) throw new Error('bad alpn')
        ids.push(escapeText(value.subarray(i + 1, i + 1 + length), true))
        i += 1 + length
      }
      if (!ids.length) throw new Error('bad alpn')
      return `alpn="${ids.join(',')}"`
    }
    case 2:
    case 8:
      // no-default-alpn, ohttp: no value
      if (value.length) throw new Error(`bad ${keyName(key)}`)
      return keyName(key)
    case 3:
      if (value.length !== 2) throw new Error('bad port')
      return `port=${view.getUint16(0)}`
    case 4: {
      if (value.length === 0 || value.length % 4) throw new Error('bad ipv4hint')
      const addresses: string[] = []
      for (let i = 0; i < value.length; i += 4) addresses.push(value.subarray(i, i + 4).join('.'))
      return `ipv4hint=${addresses.join(',')}`
    }
    case 5:
      return `ech=${Buffer.from(value).toString('base64')}`
    case 6: {
      if (value.length === 0 || value.length % 16) throw new Error('bad ipv6hint')
      const addresses: string[] = []
      for (let i = 0; i < value.length; i += 16) addresses.push(ipv6(view, i))
      return `ipv6hint=${addresses.join(',')}`
    }
    case 7:
      return `dohpath="${escapeText(value, false)}"`
    default:
      return value.length ? `key${key}="${escapeText(value, false)}"` : `key${key}`
  }
}

/** A domain name in wire form, uncompressed (RFC 9460 §2.2 forbids compression here), with its trailing dot. */
function readName(rdata: Uint8Array, start: number): { name: string; end: number } {
  const labels: string[] = []
  let offset = start
  for (;;) {
    const length = rdata[offset]
    if (length === undefined || length > 63) throw new Error('bad TargetName')
    offset++
    if (length === 0) break
    if (offset + length > rdata.length) throw new Error('bad TargetName')
    labels.push(escapeLabel(rdata.subarray(offset, offset + length)))
    offset += length
  }
  return { name: labels.length ? `${labels.join('.')}.` : '.', end: offset }
}

function escapeLabel(bytes: Uint8Array): string {
  let text = ''
  for (const byte of bytes) {
    if (byte <= 0x20 || byte >= 0x7f) text += `\\${String(byte).padStart(3, '0')}`
    else if ('."\\();@$'.includes(String.fromCharCode(byte))) text += `\\${String.fromCharCode(byte)}`
    else text += String.fromCharCode(byte)
  }
  return text
}

/** Text inside a quoted value: `"` and `\` escaped, bytes outside printable ASCII as `\DDD`; in a list item also `,`. */
function escapeText(bytes: Uint8Array, listItem: boolean): string {
  let text = ''
  for (const byte of bytes) {
    const char = String.fromCharCode(byte)
    if (byte < 0x20 || byte >= 0x7f) text += `\\${String(byte).padStart(3, '0')}`
    // In a list item `,` and `\` are escaped once for the list, then once more for the quoted text.
    else if (listItem && char === ',') text += '\\\\,'
    else if (listItem && char === '\\') text += '\\\\\\\\'
    else if (char === '"' || char === '\\') text += `\\${char}`
    else text += char
  }
  return text
}

function ipv6(view: DataView, offset: number): string {
  const groups: number[] = []
  for (let i = 0; i < 8; i++) groups.push(view.getUint16(offset + i * 2))
  // RFC 5952: the longest run (two or more) of zero groups becomes '::', the first of equal runs.
  let best = -1
  let bestLength = 1
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength) [best, bestLength] = [i, j - i]
    i = j
  }
  const hex = groups.map((group) => group.toString(16))
  if (best < 0) return hex.join(':')
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`
}

function genericRdata(rdata: Uint8Array): string {
  return `\\# ${rdata.length}${rdata.length ? ` ${Buffer.from(rdata).toString('hex')}` : ''}`
}
