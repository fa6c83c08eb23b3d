import { badRequest, type HttpError } from './errors.ts'

/**
 * The deepest nesting of arrays and objects a JSON body may have. Real bodies nest about ten levels;
 * thousands (16 KB of `[[[[`) would overflow the stack of any recursive walk over the parsed value.
 */
export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPENERS = new Set([0x5b, 0x7b])
const CLOSERS = new Set([0x5d, 0x7d])

/** Whether JSON `text` nests arrays and objects deeper than `max`, found in one pass before it is parsed. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === BACKSLASH) i++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) {
      inString = true
    } else if (OPENERS.has(code)) {
      if (++depth > max) return true
    } else if (CLOSERS.has(code)) {
      depth--
    }
  }
  return false
}

/** The 400 of a body nested deeper than MAX_JSON_DEPTH, or undefined. */
export function tooDeepJsonError(text: string): HttpError | undefined {
  if (!nestsDeeperThan(text, MAX_JSON_DEPTH)) return undefined
  const message = `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`
  return badRequest(`body ${message}`, { errors: [{ path: 'body', message }] })
}
