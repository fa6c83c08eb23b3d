import { createHash } from 'node:crypto'

/**
 * Error groups: failing results whose errors say the same thing once the parts that vary from run to run
 * are taken out. Stripped: URLs' query strings and fragments, timestamps, UUIDs and other long hex ids,
 * IP addresses and numbers; HTTP status codes are kept ("status code 503" and "404" are different
 * failures).
 *
 * Every failing result is normalized as it is stored, and agents send messages of up to 100 KB: each
 * pattern must take time linear in the message, never rescan the rest of it from each place it could
 * start (a long line of those froze the node for minutes). The patterns that did are rewritten to match
 * exactly what they matched before, so the groups stored since keep their fingerprints.
 */

// The query is optional so that a URL without one is passed over whole; were it required, each URL
// start in a long run of them would scan to the run's end before failing.
const URL_QUERY = /\b((?:https?|wss?):\/\/[^\s?#'"<>)]*)(?:[?#][^\s'"<>)]*)?/gi
const ISO_TIMESTAMP =
  /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g
const HTTP_DATE = /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT\b/g
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const HEX_ID = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g
// Two or more groups of hex and colons with a hex letter or a `::` in them (so a bare time is not one).
const IPV6 = /(?<![\w:])(?=[0-9a-f:]*[a-f]|[0-9a-f:]*::)(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:])/gi
const STATUS = /\b(status(?: code)?:? ?|HTTP\/\d(?:\.\d)? )([1-5]\d\d)\b/gi
// An asserted status (`STATUS_CODE … got 502`) is looked for to the end of its line. When a line has
// none, no later `STATUS_CODE` of that line has one either: the last alternative takes the rest of the
// line at once, and only the other status forms are looked for in it, instead of each `STATUS_CODE`
// there scanning the line again.
const STATUS_CODE =
  /\b(?:(status(?: code)?:? ?|STATUS_CODE[^\n]*?got |HTTP\/\d(?:\.\d)? )([1-5]\d\d)\b|STATUS_CODE[^\n]*)/gi
const NUMBER = /(?<![A-Za-z_<\d])\d+(?:\.\d+)?/g
// A status code is parked as `<KEPT>code` while numbers are stripped: digits after a letter stay.
const KEPT = 'KEPTSTATUS'

/** How much of the normalized message a fingerprint keeps. */
const KEPT_CHARS = 1000
/** Where the first cut is looked for. */
const FIRST_CUT_AT = 4096
// No step's match holds one of these characters (URLs end before them, no other pattern takes one); the
// asserted status is the exception, see `safeCutOfErrorMessage`.
const NO_MATCH_HOLDS = /[\n\r\t"'<>)]/g
const STATUS_CODE_NAME = /status_code/i

/**
 * The message with what varies between runs taken out, its first 1,000 characters. A long message is
 * normalized only as far as it takes to give them, up to a cut (`safeCutOfErrorMessage`): normalizing a
 * 100 KB message whole copies it once per step. `firstCutAt` lets tests cut early.
 */
export function normalizeErrorMessage(message: string, firstCutAt = FIRST_CUT_AT): string {
  // Each cut tried is at least 4 times as far as the one before and in the message's first quarter, so
  // a message that needs all of it costs at most a third more than normalizing it whole at once.
  let cut = safeCutOfErrorMessage(message, firstCutAt)
  while (cut !== undefined && cut <= message.length / 4) {
    const cleaned = normalizeWholeErrorMessage(message.slice(0, cut))
    if (cleaned.length >= KEPT_CHARS) return cleaned.slice(0, KEPT_CHARS)
    cut = safeCutOfErrorMessage(message, cut * 4)
  }
  return normalizeWholeErrorMessage(message).slice(0, KEPT_CHARS)
}

/**
 * A cut at or after `from`, before the message's end, such that the whole message's normalization
 * starts with that of the text before the cut: the end of a character no match of any step holds. No
 * match crosses it, each step keeps it, and what a pattern sees of the text before it is the same
 * either way. An asserted status (`STATUS_CODE … got 502`) is looked for to the end of its line, so a
 * line naming `STATUS_CODE` before the cut is cut only at its end (no step makes a `STATUS_CODE`).
 * Exported because the tests pin where a cut may fall.
 */
export function safeCutOfErrorMessage(message: string, from: number): number | undefined {
  NO_MATCH_HOLDS.lastIndex = from
  const found = NO_MATCH_HOLDS.exec(message)
  if (!found) return undefined
  let cut = found.index + 1
  if (found[0] !== '\n') {
    const lineStart = message.lastIndexOf('\n', found.index) + 1
    if (STATUS_CODE_NAME.test(message.slice(lineStart, cut))) cut = message.indexOf('\n', cut) + 1
  }
  return cut > 0 && cut < message.length ? cut : undefined
}

/**
 * The whole message normalized, whitespace collapsed and trimmed (not cut to 1,000 characters).
 * Exported because the tests compare the cut normalization with it on long messages.
 */
export function normalizeWholeErrorMessage(message: string): string {
  return message
    .replace(URL_QUERY, '$1')
    .replace(HTTP_DATE, '<timestamp>')
    .replace(ISO_TIMESTAMP, '<timestamp>')
    .replace(UUID, '<id>')
    .replace(HEX_ID, '<id>')
    .replace(IPV4, '<ip>')
    .replace(IPV6, '<ip>')
    .replace(STATUS_CODE, keepStatusCodes)
    .replace(NUMBER, '<n>')
    .replaceAll(KEPT, '')
    .replace(/\s+/g, ' ')
    .trim()
}

function keepStatusCodes(match: string, label: string | undefined, code: string | undefined): string {
  // The rest of the line is searched with its `STATUS_CODE` in front, so `\b` sees what it saw before.
  if (code === undefined) return match.replace(STATUS, `$1${KEPT}$2`)
  return `${label}${KEPT}${code}`
}

export interface ErrorFingerprint {
  /** Hex SHA-256 of the error type and the cleaned message. */
  hash: string
  cleaned: string
}

export function errorFingerprint(type: string | null, message: string): ErrorFingerprint {
  const cleaned = normalizeErrorMessage(message)
  const hash = createHash('sha256')
    .update(`${type ?? ''}\n${cleaned}`)
    .digest('hex')
  return { hash, cleaned }
}
