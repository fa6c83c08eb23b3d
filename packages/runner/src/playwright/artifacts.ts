import { REDACTED, type Scrubber, SENSITIVE_HEADERS } from '@svc/core'
import { readZip, writeZip } from './zip.ts'

const IMAGE_MAGIC = [
  Buffer.from([0x89, 0x50, 0x4e, 0x47]), // PNG
  Buffer.from([0xff, 0xd8, 0xff]), // JPEG
  Buffer.from('RIFF'), // WebP
  Buffer.from('GIF8'),
]

function isImage(data: Buffer): boolean {
  return IMAGE_MAGIC.some((magic) => data.subarray(0, magic.length).equals(magic))
}

/**
 * A Playwright trace with secrets and sensitive headers removed from every event, network entry
 * and resource (HTML snapshots, bodies, stacks). Image bytes are kept: only their metadata is text.
 */
export function scrubTrace(zip: Buffer, scrubber: Scrubber): Buffer {
  const entries = readZip(zip).map(({ name, data }) => {
    if (isImage(data)) return { name: scrubber.text(name), data }
    const isEvents = /\.(trace|network)$/.test(name)
    const text = isEvents ? redactHeaderLines(data.toString('utf8')) : null
    return { name: scrubber.text(name), data: scrubber.bytes(text === null ? data : Buffer.from(text)) }
  })
  return writeZip(entries)
}

function redactHeaderLines(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (!line.trim()) return line
      try {
        return JSON.stringify(redactSensitive(JSON.parse(line)))
      } catch {
        return line
      }
    })
    .join('\n')
}

/**
 * Header values in `{name, value}` lists and in `{header: value}` maps, and cookie lists.
 * Exported for tests: the scrub tests feed it each shape.
 */
export function redactSensitive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSensitive)
  if (!value || typeof value !== 'object') return value
  const record = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  const isHeaderPair = typeof record.name === 'string' && 'value' in record
  for (const [key, item] of Object.entries(record)) {
    if (isHeaderPair && key === 'value' && SENSITIVE_HEADERS.has((record.name as string).toLowerCase())) {
      out[key] = REDACTED
    } else if (SENSITIVE_HEADERS.has(key.toLowerCase()) && typeof item === 'string') {
      out[key] = REDACTED
    } else if (key === 'cookies' && Array.isArray(item)) {
      out[key] = item.map((cookie) =>
        cookie && typeof cookie === 'object' ? { ...cookie, value: REDACTED } : cookie,
      )
    } else {
      out[key] = redactSensitive(item)
    }
  }
  return out
}
