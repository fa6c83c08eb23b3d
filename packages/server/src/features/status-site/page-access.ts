import type { StatusPagesTable } from '@svc/db'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { assertNotThrottled, recordFailedAuth } from '../../auth/failed-auth-throttle.ts'
import type { ServiceContext } from '../../context.ts'
import { errorBody } from '../../http/errors.ts'
import { hashApiKey, keyLookup } from '../api-keys/api-keys.service.ts'
import { isAccessToken } from '../status-pages/status-pages.service.ts'
import { type HtmlPage, type MessageForm, renderMessagePage } from './render.ts'

/** What a page path serves: the page, its JSON summary or its feeds. */
export type Kind = 'html' | 'summary' | 'rss' | 'atom'

/** Where pages are served: under /status/{url}, or at the root of a page's own domain. */
export interface Site {
  prefix: string
  hide: boolean
  page(request: FastifyRequest): Promise<StatusPagesTable | undefined>
  /** The page's path on this site: '/status/{url}' or '' on its own domain. */
  base(request: FastifyRequest, page: StatusPagesTable): string
  origin(request: FastifyRequest): string
}

/**
 * The page behind the request if the caller may see it; otherwise the refusal is sent and undefined
 * returned. A private page the caller may not see is refused exactly as a page that doesn't exist (the
 * same status and bytes), so probing can't confirm a private slug. A token or key presented in vain is a
 * failed attempt of the client address, counted alike for both; too many are 429 before any lookup.
 */
export async function viewablePage(
  ctx: ServiceContext,
  site: Site,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: Kind,
): Promise<StatusPagesTable | undefined> {
  const queryToken = (request.query as { token?: string } | undefined)?.token
  const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]
  // The page's own cookie is left out: a stale one (its token deleted) is a visitor, not a guesser.
  const presented = Boolean(queryToken || bearer)
  if (presented) await assertNotThrottled(ctx, 'status-page-token', request.ip)
  const page = await site.page(request)
  // `/` on a host of no page is svc's own root: the dashboard's (served by the not-found handler).
  if (!page && site.hide && kind === 'html') {
    reply.callNotFound()
    return undefined
  }
  if (page && (!page.is_private || (await mayViewPrivatePage(ctx, site, request, reply, page)))) return page
  if (presented) await recordFailedAuth(ctx, 'status-page-token', request.ip)
  refuse(request, reply, kind, 404, 'Status page not found')
  return undefined
}

/** An access token (query, bearer or the page's cookie), or an API key of an account member. */
async function mayViewPrivatePage(
  ctx: ServiceContext,
  site: Site,
  request: FastifyRequest,
  reply: FastifyReply,
  page: StatusPagesTable,
): Promise<boolean> {
  const cookieName = `svc_status_${page.id}`
  const queryToken = (request.query as { token?: string } | undefined)?.token
  const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]
  const cookieToken = cookieValue(request.headers.cookie, cookieName)
  for (const token of [queryToken, bearer, cookieToken]) {
    if (token && (await isAccessToken(ctx, page.id, token))) {
      if (token === queryToken && token !== cookieToken) {
        const secure = site.origin(request).startsWith('https:') ? '; Secure' : ''
        reply.header(
          'set-cookie',
          `${cookieName}=${token}; Path=${site.base(request, page) || '/'}; Max-Age=2592000; HttpOnly; SameSite=Lax${secure}`,
        )
      }
      return true
    }
  }
  if (!bearer?.startsWith('svc_')) return false
  const key = await keyLookup.findLiveKeyByHash(ctx, hashApiKey(bearer), page.account_id)
  return Boolean(key && ((key.user_id && key.memberships.length > 0) || key.account_id === page.account_id))
}

/** Browsers (Accept: text/html) get a page; anything else the JSON error shape or `{message}`. */
export function answer(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  title: string,
  message: string,
  back?: { href: string; text: string },
  form?: MessageForm,
) {
  if (wantsHtml(request)) return sendMessage(reply, status, renderMessagePage(title, message, back, form))
  if (status >= 400) return reply.status(status).send(errorBody(status, message))
  return reply.status(status).send({ message })
}

export const wantsHtml = (request: FastifyRequest) =>
  String(request.headers.accept ?? '').includes('text/html')

export function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  kind: Kind,
  status: number,
  message: string,
) {
  reply.header('cache-control', 'no-store')
  if (kind === 'html' && wantsHtml(request)) {
    return sendMessage(reply, status, renderMessagePage('Page not found', message))
  }
  return reply.status(status).send(errorBody(status, message, status === 401 ? {} : undefined))
}

export function sendMessage(reply: FastifyReply, status: number, page: HtmlPage) {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', page.csp)
    .header('x-content-type-options', 'nosniff')
    .send(page.html)
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of header?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}
