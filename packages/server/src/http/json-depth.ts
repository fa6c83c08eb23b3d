import type { FastifyRequest } from 'fastify'
import { badRequest, type HttpError } from './errors.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The deepest nesting of arrays and objects the route's JSON body may have; default MAX_JSON_DEPTH. */
    maxJsonDepth?: number
  }
}

/**
 * The deepest nesting of arrays and objects a JSON body may have. Real bodies nest about ten levels;
 * thousands (16 KB of `[[[[`) would overflow the stack of any recursive walk over the parsed value.
 * Exported because the tests nest past it.
 */
export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPENERS = new Set([0x5b, 0x7b])
const CLOSERS = new Set([0x5d, 0x7d])

/**
 * Whether JSON `text` nests arrays and objects deeper than `max`, found in one pass before it is parsed.
 * Exported because the tests walk deep values with it.
 */
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

/** The 400 of a body nested deeper than its route allows, or undefined. */
export function tooDeepJsonError(request: FastifyRequest, text: string): HttpError | undefined {
  const max = request.routeOptions.config?.maxJsonDepth ?? MAX_JSON_DEPTH
  if (!nestsDeeperThan(text, max)) return undefined
  const message = `must not nest arrays and objects more than ${max} levels deep`
  return badRequest(`body ${message}`, { errors: [{ path: 'body', message }] })
}
