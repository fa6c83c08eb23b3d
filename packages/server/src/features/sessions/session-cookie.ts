import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'

/** The session cookie and the CSRF token tied to it. */

export const SESSION_COOKIE = 'svc_session'
export const CSRF_HEADER = 'x-csrf-token'

/** The session id in the request's cookie header, if any. */
export function sessionIdOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const [name, ...value] = part.split('=')
    if (name?.trim() === SESSION_COOKIE) {
      const id = value.join('=').trim()
      return /^[A-Za-z0-9_-]{16,128}$/.test(id) ? id : undefined
    }
  }
  return undefined
}

/** `Secure` when the world reaches svc over https (a plain-http install would never get it back). */
export function sessionCookie(id: string, maxAgeSeconds: number, publicUrl: string): string {
  const secure = publicUrl.startsWith('https:') ? '; Secure' : ''
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`
}

export function clearedSessionCookie(publicUrl: string): string {
  return sessionCookie('', 0, publicUrl)
}

/**
 * The CSRF token of a session: derived from its secret id, so it needs no storage and nobody without
 * the cookie can compute it; a cross-site page can't read it (no CORS), so it can't send it.
 */
export function csrfTokenOf(sessionId: string): string {
  return createHash('sha256').update(`csrf:${sessionId}`).digest('base64url')
}

export function hasValidCsrfToken(request: FastifyRequest, sessionId: string): boolean {
  const presented = request.headers[CSRF_HEADER]
  if (typeof presented !== 'string') return false
  const expected = Buffer.from(csrfTokenOf(sessionId))
  const actual = Buffer.from(presented)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
