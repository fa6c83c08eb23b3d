import { statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/**
 * Serves the dashboard (`packages/web/dist`, built by Vite) at `/`: its files as they are, and its
 * index.html for any other page the browser asks for, so the app's own router shows it. API paths keep
 * their JSON 404s.
 */

export const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL('../../../../web/dist', import.meta.url))

/**
 * Playwright's trace viewer as playwright-core ships it (a static app with a service worker), served at
 * `/trace-viewer/` so a browser result's trace opens from svc itself: `/trace-viewer/?trace=<its URL>`.
 * Same origin, so the trace is read with the session's cookie.
 */
export const TRACE_VIEWER_DIR = resolve(
  dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')),
  'lib/vite/traceViewer',
)
const TRACE_VIEWER = /^\/trace-viewer(\/.*)?$/

/** Paths that belong to the API, the agents, public status pages and the docs: never the app. */
const RESERVED = /^\/(v\d+|next|admin|agent|status|ping|docs)(\/|$)|^\/(openapi|swagger)\.json$/
/** Vite names these by their content hash: they never change, so browsers keep them a year. */
const HASHED_ASSETS = /^\/assets\//
const ONE_YEAR_MS = 365 * 24 * 3_600_000

/**
 * `reply.sendFile`, rooted per call: the directory may not exist yet (built after the start). The build
 * writes a `.br` and a `.gz` beside each text file; a browser that accepts one gets it.
 */
export async function registerDashboardHosting(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, { serve: false, preCompressed: true })
}

/**
 * The not-found handler: a file of the dashboard, else its index.html for a page a browser asks for,
 * else `notFound` (the API's JSON 404).
 */
export function serveDashboardOr(
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown,
  dist: string,
) {
  const distDir = resolve(dist)
  return (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return notFound(request, reply)
    // The URL the browser asked for: `/` reaches here rewritten to the custom-domain status page.
    const path = pathOf(request.originalUrl)
    if (path === undefined || RESERVED.test(path)) return notFound(request, reply)
    const traceViewerPath = TRACE_VIEWER.exec(path)
    if (traceViewerPath) return serveTraceViewer(reply, traceViewerPath[1] ?? '/', notFound, request)
    const file = path === '/' ? undefined : fileIn(distDir, path)
    if (file) {
      if (HASHED_ASSETS.test(path))
        return reply.sendFile(file, distDir, { maxAge: ONE_YEAR_MS, immutable: true })
      return reply.header('cache-control', 'no-cache').sendFile(file, distDir, { cacheControl: false })
    }
    if (path !== '/' && !String(request.headers.accept ?? '').includes('text/html'))
      return notFound(request, reply)
    return sendIndex(reply, distDir)
  }
}

function serveTraceViewer(
  reply: FastifyReply,
  path: string,
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown,
  request: FastifyRequest,
) {
  // `/trace-viewer` without its slash would resolve the viewer's relative asset paths against `/`.
  if (path === '/' && !request.url.split('?')[0]?.endsWith('/'))
    return reply.redirect(`/trace-viewer/${request.url.slice('/trace-viewer'.length)}`)
  const file = fileIn(TRACE_VIEWER_DIR, path === '/' ? '/index.html' : path)
  if (!file) return notFound(request, reply)
  return reply.header('cache-control', 'no-cache').sendFile(file, TRACE_VIEWER_DIR, { cacheControl: false })
}

function sendIndex(reply: FastifyReply, distDir: string) {
  reply.header('cache-control', 'no-cache').header('x-frame-options', 'DENY')
  if (fileIn(distDir, '/index.html')) return reply.sendFile('index.html', distDir, { cacheControl: false })
  return reply.status(503).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE)
}

/** The path of a request's URL, decoded; undefined when it can't be. */
function pathOf(url: string): string | undefined {
  try {
    return decodeURIComponent(url.split('?')[0] as string)
  } catch {
    return undefined
  }
}

/** `path` relative to `distDir` when it names a file inside it (never outside, never a dotfile). */
function fileIn(distDir: string, path: string): string | undefined {
  if (path.split('/').some((segment) => segment.startsWith('.'))) return undefined
  const absolute = resolve(distDir, `.${path}`)
  if (!absolute.startsWith(distDir + sep)) return undefined
  try {
    return statSync(absolute).isFile() ? absolute.slice(distDir.length + 1) : undefined
  } catch {
    return undefined
  }
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>svc: dashboard not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>The dashboard isn't built</h1>
<p>svc serves the dashboard from <code>packages/web/dist</code>, which doesn't exist yet. Build it in the
svc directory, then reload this page:</p>
<pre>npm run build -w @svc/web</pre>
<p>The API works meanwhile: see <a href="/docs">the API docs</a>.</p>
</body>
</html>
`
