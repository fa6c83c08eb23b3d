import { domainToASCII } from 'node:url'

export const REDACTED = '[REDACTED]'

/** Headers whose values never leave a run, whatever the variables say. */
export const SENSITIVE_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie'])

const MIN_PLAIN_LENGTH = 3
const MIN_ENCODED_LENGTH = 4

/**
 * Replaces secret values in text and bytes, in the forms they travel in: as is, URL- and
 * form-encoded, JSON-escaped (once or twice), and base64 (standard and URL-safe) at any alignment inside a longer
 * base64 string (so `Basic base64(user:secret)` is caught too).
 */
export class Scrubber {
  readonly forms: string[]

  constructor(secrets: Iterable<string>) {
    const forms = new Set<string>()
    for (const secret of secrets) {
      if (secret.length < MIN_PLAIN_LENGTH) continue
      forms.add(secret)
      for (const form of encodedForms(secret)) if (form.length >= MIN_ENCODED_LENGTH) forms.add(form)
    }
    // Longest first, so a form that contains another is replaced whole.
    this.forms = [...forms].sort((a, b) => b.length - a.length)
  }

  get empty(): boolean {
    return this.forms.length === 0
  }

  text(value: string): string {
    let out = value
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join(REDACTED)
    return out
  }

  bytes(value: Buffer): Buffer {
    let out = value
    for (const form of this.forms) {
      const needle = Buffer.from(form)
      if (out.indexOf(needle) === -1) continue
      const parts: Buffer[] = []
      let from = 0
      for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, from)) {
        parts.push(out.subarray(from, at), Buffer.from(REDACTED))
        from = at + needle.length
      }
      parts.push(out.subarray(from))
      out = Buffer.concat(parts)
    }
    return out
  }

  /** Every string value inside a JSON-like value (keys are structure and stay as they are). */
  deep<T>(value: T): T {
    if (this.empty) return value
    const walk = (item: unknown): unknown => {
      if (typeof item === 'string') return this.text(item)
      if (Array.isArray(item)) return item.map(walk)
      if (item && typeof item === 'object') {
        return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, walk(inner)]))
      }
      return item
    }
    return walk(value) as T
  }
}

function encodedForms(secret: string): string[] {
  const forms = [
    // As a URL's host name reaches errors and results: lowercased, and in punycode when not ASCII.
    secret.toLowerCase(),
    domainToASCII(secret),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, '+'),
    encodeURI(secret),
    JSON.stringify(secret).slice(1, -1),
    // JSON text inside a JSON string (a logged JSON.stringify in a trace's JSON lines): escaped twice.
    JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1),
  ]
  const bytes = Buffer.from(secret)
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64')
    // Characters that mix bits of the neighbouring bytes are left out of the core.
    const start = [0, 2, 3][offset] as number
    const end = Math.floor(((offset + bytes.length) * 8) / 6)
    const core = encoded.slice(start, end)
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'))
  }
  const whole = bytes.toString('base64')
  forms.push(whole, bytes.toString('base64url'))
  return forms
}

/** Header maps with sensitive values replaced, then secrets scrubbed from the rest. */
export function scrubHeaders(
  headers: Record<string, string> | undefined,
  scrubber: Scrubber,
): Record<string, string> | undefined {
  if (!headers) return headers
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    out[scrubber.text(name)] = SENSITIVE_HEADERS.has(name.toLowerCase()) ? REDACTED : scrubber.text(value)
  }
  return out
}
