import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ServiceContext } from '../../context.ts'
import { renderAtom, renderRss, renderSummary } from './feeds.ts'
import { type Kind, type Site, viewablePage } from './page-access.ts'
import { cachedRendering, type Rendered } from './page-cache.ts'
import { buildPageView } from './page-view.ts'
import { renderStatusPage } from './render.ts'

export const CONTENT_TYPES: Record<Kind, string> = {
  html: 'text/html; charset=utf-8',
  summary: 'application/json; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
}

/** The page (or its summary or feed) from the rendering cache, with its ETag, gzipped when asked. */
export async function sendPage(
  ctx: ServiceContext,
  site: Site,
  kind: Kind,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const page = await viewablePage(ctx, site, request, reply, kind)
  if (!page) return reply
  const base = site.base(request, page)
  const origin = site.origin(request)
  const rendering = await cachedRendering(ctx, page, `${kind}|${origin}${base}`, async () => {
    const view = await buildPageView(ctx, page)
    const pageUrl = `${origin}${base}`
    if (kind === 'html') {
      const html = renderStatusPage(view, base)
      return rendered(html.html, { 'content-security-policy': html.csp })
    }
    if (kind === 'summary') return rendered(JSON.stringify(renderSummary(view, pageUrl)))
    if (kind === 'rss') return rendered(renderRss(view, pageUrl))
    return rendered(renderAtom(view, pageUrl, page.id))
  })
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))
  // Each encoding is its own representation, so it has its own strong ETag.
  const etag = gzip ? `${rendering.etag.slice(0, -1)}-gz"` : rendering.etag
  reply
    .headers(rendering.headers)
    .header('content-type', CONTENT_TYPES[kind])
    .header('etag', etag)
    .header('cache-control', page.is_private ? 'private, no-store' : 'public, no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('vary', 'accept-encoding')
  if (matchesEtag(request.headers['if-none-match'], etag)) return reply.status(304).send()
  if (gzip) return reply.header('content-encoding', 'gzip').send(rendering.gzipped)
  return reply.send(rendering.body)
}

/** If-None-Match's weak comparison (RFC 9110): any listed tag, `W/` or not, or `*`. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}

function rendered(text: string, headers: Record<string, string> = {}): Rendered {
  const body = Buffer.from(text, 'utf8')
  return {
    body,
    gzipped: gzipSync(body),
    etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
    headers,
  }
}
