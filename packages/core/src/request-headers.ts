/**
 * The one rule for the request headers users give svc to send (webhook channels, API checks): saves
 * refuse what it refuses (400), and senders leave out what an older version stored before the rule.
 */

/** A header name is an HTTP token (RFC 9110): anything else could never be sent. */
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"
const HEADER_NAME = new RegExp(HEADER_NAME_PATTERN)

/** Headers the HTTP client sets itself and refuses from callers: with one, every request would fail. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'expect', 'keep-alive', 'upgrade'])
/**
 * Connection-specific headers, which HTTP/2 forbids: the HTTP client speaks HTTP/2 to a server that
 * offers it (over TLS) and refuses a request with one before sending it.
 */
const HTTP1_ONLY_HEADERS = new Set(['proxy-connection', 'http2-settings'])
const HTTP2_REFUSES = 'svc speaks HTTP/2 to servers that offer it, and HTTP/2 refuses'

export interface HeaderRefusal {
  /** The part at fault. */
  field: 'key' | 'value'
  /** Why, naming the header as written: `Keep-Alive can't be set: …`. */
  message: string
}

/** Why `key` can never be a header name, or null. */
export function refusedHeaderName(key: string): HeaderRefusal | null {
  if (HEADER_NAME.test(key)) return null
  return {
    field: 'key',
    message: `${key} can't be set: a header name is an HTTP token (letters, digits and !#$%&'*+-.^_\`|~)`,
  }
}

/** Why svc won't send this header as written, or null. */
export function refusedRequestHeader(key: string, value: string): HeaderRefusal | null {
  const malformed = refusedHeaderName(key)
  if (malformed) return malformed
  const name = key.toLowerCase()
  if (FRAMING_HEADERS.has(name))
    return { field: 'key', message: `${key} can't be set: svc frames each request itself` }
  if (HTTP1_ONLY_HEADERS.has(name)) {
    return {
      field: 'key',
      message: `${key} can't be set: ${HTTP2_REFUSES} connection-specific headers: every request to one would fail`,
    }
  }
  // The HTTP client sends close or keep-alive of its own, whatever list it is given.
  if (name === 'connection' && !/^\s*(close|keep-alive)\s*$/i.test(value)) {
    return {
      field: 'value',
      message:
        `${key} may only be close or keep-alive: svc's HTTP client manages connections itself, sends one ` +
        'of these two and drops any other connection option, so this value would not be sent as written',
    }
  }
  if (name === 'te' && !/^\s*trailers\s*$/i.test(value)) {
    return {
      field: 'value',
      message: `${key} may only be trailers: ${HTTP2_REFUSES} any other TE: every request to one would fail`,
    }
  }
  return null
}

/** Control characters but tab: HTTP can't carry them in a header value (a line break would end it). */
const CONTROL_CHARACTERS = /[^\P{Cc}\t]+/gu
/** The same class without the global flag, whose `test` would carry `lastIndex` from one call to the next. */
const CONTROL_CHARACTER = /[^\P{Cc}\t]/u

/** Why a header value can't be sent, or null: `{{VARIABLES}}` hold none, so one found is there as written. */
export function refusedHeaderValue(key: string, value: string): HeaderRefusal | null {
  if (!CONTROL_CHARACTER.test(value)) return null
  return {
    field: 'value',
    message:
      `${key} can't be sent: its value holds a control character (such as a line break or NUL), ` +
      "which HTTP can't carry in a header (a tab can)",
  }
}

/** The value with each run of control characters as one space: what webhook channels send. */
export function withoutControlCharacters(value: string): string {
  return value.replace(CONTROL_CHARACTERS, ' ')
}

/**
 * A header value as the HTTP client takes it: text of one byte a character, which it sends as Latin-1.
 * Every value goes as its UTF-8 bytes, as curl sends what is typed in a UTF-8 terminal: `é` is the same
 * two bytes alone as beside `€`, and receivers decoding UTF-8 read what was written.
 */
export function encodedHeaderValue(value: string): string {
  return BEYOND_ASCII.test(value) ? Buffer.from(value, 'utf8').toString('latin1') : value
}

/** A character whose UTF-8 bytes are more than itself; most values have none and need no copy. */
const BEYOND_ASCII = /[\u0080-\uffff]/

/**
 * The headers as svc sends them: without those the rule refuses (stored by a version before it), TE as
 * lower-case `trailers`, the one form HTTP/2 takes.
 */
export function sendableHeaders<T extends { key: string; value: string }>(headers: readonly T[]): T[] {
  return headers
    .filter(({ key, value }) => refusedRequestHeader(key, value) === null)
    .map((header) => (header.key.toLowerCase() === 'te' ? { ...header, value: 'trailers' } : header))
}
