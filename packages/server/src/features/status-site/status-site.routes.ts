import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject } from '@svc/core'
import type { StatusPagesTable } from '@svc/db'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'
import { badRequest, clientErrorOf, HttpError, handleError } from '../../http/errors.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { enforceAddressRateLimit } from '../../rate-limit/rate-limit.ts'
import { dashboardOfDomain, sendDashboardPage } from '../dashboards/dashboard-site.service.ts'
import {
  confirmSubscription,
  isUnsubscribeToken,
  LINK_PREFIX,
  pageOfLinkToken,
  subscribe,
  subscriberLinksOf,
  unsubscribe,
} from '../status-page-subscribers/status-page-subscribers.service.ts'
import { findPageByDomain, findPageBySlug } from '../status-pages/page-lookups.service.ts'
import { answer, type Kind, refuse, type Site, sendMessage, viewablePage, wantsHtml } from './page-access.ts'
import { cachedPageRow } from './page-cache.ts'
import { CONTENT_TYPES, sendPage } from './page-responses.ts'
import { renderMessagePage } from './render.ts'

/**
 * The public side of status pages: /status/{url} and the same paths on a page's custom domain
 * (rewriteCustomDomainUrl sends those to /status/_domain). No API key: a private page needs an API key
 * of an account member or one of its access tokens.
 */

/** Paths a custom domain serves, at its root. */
const DOMAIN_PATHS = new Set([
  '/',
  '/summary.json',
  '/feed.rss',
  '/feed.atom',
  '/subscribe',
  '/subscribe/confirm',
  '/unsubscribe',
])
const DOMAIN_PREFIX = '/status/_domain'

/** Fastify's rewriteUrl: a page path on any host is looked up by the Host header (no slug can be `_domain`). */
export function rewriteCustomDomainUrl(req: { url?: string }): string {
  const url = req.url ?? '/'
  const query = url.indexOf('?')
  const path = query < 0 ? url : url.slice(0, query)
  if (!DOMAIN_PATHS.has(path)) return url
  return `${DOMAIN_PREFIX}${path === '/' ? '' : path}${query < 0 ? '' : url.slice(query)}`
}

const SlugParams = StrictObject({ slug: Type.String({ minLength: 1, maxLength: 100 }) })
const TokenQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) })
const SubscribeBody = StrictObject({ email: Type.String({ minLength: 1, maxLength: 254 }) })

export const statusSiteRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  acceptFormBodies(app)
  answerVisitorsInHtml(app)
  const { bySlug, byDomain, shownOnHost } = sitesOf(ctx)
  for (const site of [bySlug, byDomain]) {
    const params = site === bySlug ? { params: SlugParams } : {}
    const documented: Documented = (summary, description, extra = {}) =>
      site.hide
        ? { hide: true, ...params, ...extra }
        : { tags: TAGS, summary, description, security: [], ...params, ...extra }
    pageRoutes(app, ctx, site, documented)
    subscribeRoute(app, ctx, site, documented)
    linkRoutes(app, ctx, {
      confirmUrl: `${site.prefix}/subscribe/confirm`,
      unsubscribeUrl: `${site.prefix}/unsubscribe`,
      documented,
      pageOf: (request) => site.page(request),
      backOf: (request, page) => site.base(request, page) || '/',
    })
  }

  // The links in subscriber mail: by token alone, so they outlive a change of the page's slug.
  linkRoutes(app, ctx, {
    confirmUrl: `${LINK_PREFIX}/confirm`,
    unsubscribeUrl: `${LINK_PREFIX}/unsubscribe`,
    documented: (summary, description, extra = {}) => ({
      tags: TAGS,
      summary: `${summary} (the link in mails)`,
      description: `${description} Finds the page by the token, whatever its slug is now.`,
      security: [],
      ...extra,
    }),
    pageOf: async (request, link) => {
      const token = (request.query as { token?: string }).token
      const row = token ? await pageOfLinkToken(ctx, link, token) : undefined
      return row && (await shownOnHost(request, row)) ? row : undefined
    },
    backOf: (_request, page) => subscriberLinksOf(ctx, page).page,
  })
}

const TAGS = ['status-site']

/** A route's schema: documented on the page's own paths, hidden on a custom domain's. */
type Documented = (summary: string, description: string, extra?: Record<string, unknown>) => object

function acceptFormBodies(app: RouteApp) {
  // HTML forms post url-encoded bodies; the page works without JavaScript.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16_384 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  )
  // RFC 8058: mail clients SHOULD send their one-click unsubscribe POST as multipart/form-data.
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: 16_384 },
    (request, body, done) => {
      const headers = { 'content-type': String(request.headers['content-type']) }
      new Response(new Uint8Array(body as Buffer), { headers }).formData().then(
        (form) => done(null, Object.fromEntries([...form].filter(([, value]) => typeof value === 'string'))),
        () => done(badRequest('body is not valid multipart/form-data'), undefined),
      )
    },
  )
}

/** Visitors' browsers get a page for what they got wrong (a form field, a link cut short), not JSON. */
function answerVisitorsInHtml(app: RouteApp) {
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const client = clientErrorOf(error, request)
    if (!client || !wantsHtml(request)) return handleError(error, request, reply)
    const title = client.statusCode === 404 ? 'Page not found' : 'That did not work'
    // The subscribe form sent empty (or without its field): the visitor reads what to do.
    const message = /^body\.email (is required|must NOT have fewer)/.test(client.message)
      ? 'Enter the email address to send updates to.'
      : client.message
    return sendMessage(reply.headers(client.headers), client.statusCode, renderMessagePage(title, message))
  })
}

/** The two ways to a page: its slug under /status, and its custom domain. */
function sitesOf(ctx: ServiceContext) {
  const ownHost = new URL(ctx.publicUrl).hostname
  /**
   * A customer's domain shows their page only: anyone's page by its slug there would put another
   * tenant's words under their name. svc's own host and hosts of no page show any page.
   */
  const shownOnHost = async (request: FastifyRequest, row: StatusPagesTable): Promise<boolean> => {
    const host = hostOf(request)
    if (!host || host === ownHost || host === row.custom_domain) return true
    return !(await cachedPageRow(ctx, `domain:${host}`, () => findPageByDomain(ctx, host)))
  }
  const bySlug: Site = {
    prefix: '/status/:slug',
    hide: false,
    page: async (request) => {
      const slug = (request.params as { slug: string }).slug
      const row = await cachedPageRow(ctx, `slug:${slug}`, () => findPageBySlug(ctx, slug))
      return row && (await shownOnHost(request, row)) ? row : undefined
    },
    base: (_request, page) => `/status/${page.url}`,
    origin: () => ctx.publicUrl,
  }
  const byDomain: Site = {
    prefix: DOMAIN_PREFIX,
    hide: true,
    page: (request) => {
      const host = hostOf(request)
      return host
        ? cachedPageRow(ctx, `domain:${host}`, () => findPageByDomain(ctx, host))
        : Promise.resolve(undefined)
    },
    base: () => '',
    origin: (request) => `${protocolOf(request)}://${hostOf(request)}`,
  }
  return { bySlug, byDomain, shownOnHost }
}

const PAGES: [string, Kind, string, string][] = [
  ['', 'html', 'Public status page (HTML)', 'Overall status, services with 90-day uptime, incidents.'],
  ['/summary.json', 'summary', 'Public status page as JSON', 'Statuses, uptime and incidents of the page.'],
  ['/feed.rss', 'rss', 'Incidents of a status page (RSS 2.0)', 'One item per incident.'],
  ['/feed.atom', 'atom', 'Incidents of a status page (Atom)', 'One entry per incident.'],
]

function pageRoutes(app: RouteApp, ctx: ServiceContext, site: Site, documented: Documented) {
  for (const [path, kind, summary, description] of PAGES) {
    app.get(
      `${site.prefix}${path}`,
      {
        schema: documented(
          summary,
          `${description} No API key; a private page needs ?token=, a bearer access token or an API key of an account member.`,
          {
            querystring: TokenQuery,
            response: {
              200: {
                description: 'The page',
                content: {
                  [CONTENT_TYPES[kind].split(';')[0] as string]: {
                    schema: { type: kind === 'summary' ? 'object' : 'string' },
                  },
                },
              },
            },
          },
        ),
      },
      async (request, reply) => {
        // A custom domain may be a dashboard's rather than a status page's.
        const dashboard =
          site.prefix === DOMAIN_PREFIX && kind === 'html' && (await dashboardOfDomain(ctx, hostOf(request)))
        if (dashboard)
          return sendDashboardPage(ctx, request, reply, 'custom_domain', dashboard.custom_domain ?? '', '')
        return sendPage(ctx, site, kind, request, reply)
      },
    )
  }
}

function subscribeRoute(app: RouteApp, ctx: ServiceContext, site: Site, documented: Documented) {
  app.post(
    `${site.prefix}/subscribe`,
    {
      schema: documented(
        'Subscribe to a status page by email',
        'Double opt-in: a confirmation link is emailed; every confirmed subscriber gets the updates posted ' +
          'with notifySubscribers. Takes JSON or a form post; the answer is the same whether or not the ' +
          'address was subscribed already.',
        {
          body: SubscribeBody,
          response: {
            202: Type.Object({ message: Type.String() }),
            200: {
              description: 'For a browser (Accept: text/html): an HTML page',
              content: { 'text/html': { schema: { type: 'string' } } },
            },
          },
        },
      ),
    },
    async (request, reply) => {
      await enforceAddressRateLimit(ctx, 'status-forms', request.ip, ctx.limits.statusForms)
      const page = await viewablePage(ctx, site, request, reply, 'html')
      if (!page) return reply
      const back = { href: site.base(request, page) || '/', text: `Back to ${page.name}` }
      try {
        await subscribe(ctx, page, (request.body as { email: string }).email)
      } catch (error) {
        return refusedSubscription(error, request, reply, back)
      }
      const message =
        'If the address can subscribe, a confirmation link is on its way: open it to start getting updates.'
      if (wantsHtml(request)) return answer(request, reply, 200, 'Check your inbox', message, back)
      return reply.status(202).send({ message })
    },
  )
}

/** Why a subscription was refused, for a browser as a page; what a page can't say is thrown on. */
function refusedSubscription(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  back: { href: string; text: string },
) {
  // The page deleted meanwhile: as if it had been gone already.
  if (error instanceof HttpError && error.statusCode === 404)
    return refuse(request, reply, 'html', 404, error.message)
  if (wantsHtml(request) && error instanceof HttpError && error.statusCode === 400)
    return answer(request, reply, 400, 'That is not an email address', error.message, back)
  if (wantsHtml(request) && error instanceof HttpError && error.statusCode === 429)
    return answer(
      request,
      reply.headers(error.headers),
      429,
      'Too many sign-ups right now',
      error.message,
      back,
    )
  throw error
}

/** Where the links of subscriber mail are served, and how they find their page. */
interface LinkSite {
  confirmUrl: string
  unsubscribeUrl: string
  documented: Documented
  pageOf: (request: FastifyRequest, link: 'confirm' | 'unsubscribe') => Promise<StatusPagesTable | undefined>
  backOf: (request: FastifyRequest, page: StatusPagesTable) => string
}

function linkRoutes(app: RouteApp, ctx: ServiceContext, links: LinkSite) {
  confirmRoute(app, ctx, links)
  unsubscribeRoute(app, ctx, links)
}

/** A refused link names no private page: its name would confirm that the slug exists. */
function publicBack(links: LinkSite, request: FastifyRequest, page: StatusPagesTable | undefined) {
  return page && !page.is_private
    ? { href: links.backOf(request, page), text: `Go to ${page.name}` }
    : undefined
}

function confirmRoute(app: RouteApp, ctx: ServiceContext, links: LinkSite) {
  app.get(
    links.confirmUrl,
    {
      schema: links.documented('Confirm an email subscription', 'The link in the confirmation email.', {
        querystring: TokenQuery,
        response: {
          200: MESSAGE_RESPONSE,
        },
      }),
    },
    async (request, reply) => {
      await enforceAddressRateLimit(ctx, 'status-forms', request.ip, ctx.limits.statusForms)
      const page = await links.pageOf(request, 'confirm')
      const token = (request.query as { token?: string }).token
      if (!page || !token || !(await confirmSubscription(ctx, page, token)))
        return answer(
          request,
          reply,
          404,
          'Link not valid',
          'This confirmation link is unknown.',
          publicBack(links, request, page),
        )
      const back = { href: links.backOf(request, page), text: `Go to ${page.name}` }
      const message = `Subscription confirmed: you will get an email whenever ${page.name} posts an incident update.`
      return answer(request, reply, 200, 'Subscription confirmed', message, back)
    },
  )
}

function unsubscribeRoute(app: RouteApp, ctx: ServiceContext, links: LinkSite) {
  app.route({
    method: ['GET', 'POST'],
    url: links.unsubscribeUrl,
    schema: links.documented(
      'Unsubscribe with one click',
      'The link in every email (also as List-Unsubscribe, which mail clients POST to). A POST ' +
        'unsubscribes; a GET (the link opened, or fetched by a mail scanner) asks first, with a button ' +
        'that POSTs, so that nobody is unsubscribed by a program opening their mail.',
      {
        querystring: TokenQuery,
        response: {
          200: MESSAGE_RESPONSE,
        },
      },
    ),
    handler: async (request, reply) => {
      await enforceAddressRateLimit(ctx, 'status-forms', request.ip, ctx.limits.statusForms)
      const page = await links.pageOf(request, 'unsubscribe')
      const token = (request.query as { token?: string }).token
      const back = page ? { href: links.backOf(request, page), text: `Go to ${page.name}` } : undefined
      const notSubscribed = () =>
        answer(
          request,
          reply,
          404,
          'Link not valid',
          'This address is not subscribed (any more).',
          publicBack(links, request, page),
        )
      if (request.method === 'GET') {
        if (!page || !token || !(await isUnsubscribeToken(ctx, page, token))) return notSubscribed()
        const question = `Stop getting emails from ${page.name}? Send a POST to this link, or press the button.`
        return answer(request, reply, 200, 'Unsubscribe?', question, back, {
          action: request.originalUrl,
          button: 'Unsubscribe',
          fields: { 'List-Unsubscribe': 'One-Click' },
        })
      }
      if (!page || !token || !(await unsubscribe(ctx, page, token))) return notSubscribed()
      const message = `Unsubscribed: you will get no more emails from ${page.name}.`
      return answer(request, reply, 200, 'Unsubscribed', message, back)
    },
  })
}

const MESSAGE_RESPONSE = {
  description: 'An HTML page for browsers (Accept: text/html), else `{message}`',
  content: {
    'text/html': { schema: { type: 'string' } },
    'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } } } },
  },
}

function hostOf(request: FastifyRequest): string | undefined {
  const host = request.headers.host?.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '')
  return host && /^[a-z0-9.-]{1,253}$/.test(host) ? host : undefined
}

function protocolOf(request: FastifyRequest): string {
  const forwarded = request.headers['x-forwarded-proto']
  return forwarded === 'https' || forwarded === 'http' ? forwarded : request.protocol
}
