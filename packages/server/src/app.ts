import { randomUUID } from 'node:crypto'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Store } from '@svc/db'
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions } from 'fastify'
import { authenticate } from './auth/authenticate.ts'
import { type Clock, systemClock } from './clock.ts'
import {
  type AbuseLimits,
  DEFAULT_ABUSE_LIMITS,
  DEFAULT_SESSION_SETTINGS,
  type SessionSettings,
} from './config.ts'
import type { ServiceContext } from './context.ts'
import type { SecretBox } from './crypto/secret-box.ts'
import { accountByIdRoutes } from './features/accounts/account-by-id.routes.ts'
import { accountsRoutes } from './features/accounts/accounts.routes.ts'
import { nextAccountsRoutes } from './features/accounts/next-accounts.routes.ts'
import { adminRoutes } from './features/admin/admin.routes.ts'
import { agentProtocolRoutes } from './features/agent-protocol/agent-protocol.routes.ts'
import { alertChannelsRoutes } from './features/alert-channels/alert-channels.routes.ts'
import { alertNotificationsRoutes } from './features/alerting/alert-notifications.ts'
import { analyticsRoutes } from './features/analytics/analytics.routes.ts'
import { batchAnalyticsRoutes } from './features/analytics/batch-analytics.routes.ts'
import { apiKeysRoutes } from './features/api-keys/api-keys.routes.ts'
import { badgesRoutes } from './features/badges/badges.routes.ts'
import { checkAlertsRoutes } from './features/check-alerts/check-alerts.routes.ts'
import { checkGroupsRoutes } from './features/check-groups/check-groups.routes.ts'
import { checkGroupsV2Routes } from './features/check-groups/check-groups-v2.routes.ts'
import { checkResultsRoutes } from './features/check-results/check-results.routes.ts'
import { checkSessionsRoutes } from './features/check-sessions/check-sessions.routes.ts'
import { checkStatusesRoutes } from './features/check-statuses/check-statuses.ts'
import { checksRoutes } from './features/checks/checks.routes.ts'
import { checkVersionsRoutes } from './features/checks/checks-versions.routes.ts'
import { clientCertificatesRoutes } from './features/client-certificates/client-certificates.routes.ts'
import { dashboardRoutes } from './features/dashboard/dashboard.routes.ts'
import {
  DEFAULT_WEB_DIST_DIR,
  registerDashboardHosting,
  serveDashboardOr,
} from './features/dashboard-hosting/dashboard-hosting.ts'
import { dashboardIncidentsRoutes } from './features/dashboards/dashboard-incidents.routes.ts'
import { dashboardSiteRoutes } from './features/dashboards/dashboard-site.routes.ts'
import { dashboardsRoutes } from './features/dashboards/dashboards.routes.ts'
import { errorGroupsRoutes } from './features/error-groups/error-groups.routes.ts'
import { heartbeatEventsRoutes } from './features/heartbeats/heartbeat-events.routes.ts'
import { heartbeatRoutes } from './features/heartbeats/heartbeats.ts'
import { hostedIncidentsRoutes } from './features/incidents/hosted-incidents.routes.ts'
import { incidentsRoutes } from './features/incidents/incidents.routes.ts'
import { serveLiveResults } from './features/live-results/live-results.ts'
import { locationsRoutes } from './features/locations/locations.routes.ts'
import { maintenanceOccurrencesRoutes } from './features/maintenance-windows/maintenance-occurrences.routes.ts'
import { maintenanceWindowsRoutes } from './features/maintenance-windows/maintenance-windows.routes.ts'
import { privateLocationsRoutes } from './features/private-locations/private-locations.routes.ts'
import { projectsRoutes } from './features/projects/projects.routes.ts'
import { reportingRoutes } from './features/reporting/reporting.routes.ts'
import { rootCauseAnalysesRoutes } from './features/root-cause-analyses/root-cause-analyses.routes.ts'
import { runtimesRoutes } from './features/runtimes/runtimes.routes.ts'
import { sessionsRoutes } from './features/sessions/sessions.routes.ts'
import { snippetsRoutes } from './features/snippets/snippets.routes.ts'
import { staticAddressesRoutes } from './features/static-addresses/static-addresses.routes.ts'
import { statusPageServicesRoutes } from './features/status-page-services/status-page-services.routes.ts'
import { hostedSubscriptionsRoutes } from './features/status-page-subscribers/hosted-subscriptions.routes.ts'
import { statusPageSubscribersRoutes } from './features/status-page-subscribers/status-page-subscribers.routes.ts'
import { hostedStatusPagesRoutes } from './features/status-pages/hosted-status-pages.routes.ts'
import { statusPagesRoutes } from './features/status-pages/status-pages.routes.ts'
import { rewriteCustomDomainUrl, statusSiteRoutes } from './features/status-site/status-site.routes.ts'
import { storedFilesRoutes } from './features/stored-files/stored-files.routes.ts'
import { hostedCliSessionRoutes } from './features/test-sessions/hosted-cli.routes.ts'
import { testSessionsRoutes } from './features/test-sessions/test-sessions.routes.ts'
import { triggersRoutes } from './features/triggers/triggers.routes.ts'
import { variablesRoutes } from './features/variables/variables.routes.ts'
import {
  type ConnectionLimits,
  capConnections,
  connectionOptionsOf,
  DEFAULT_CONNECTION_LIMITS,
} from './http/connection-limits.ts'
import { handleError, handleFrameworkError, handleNotFound, MAX_PARAM_LENGTH } from './http/errors.ts'
import { acceptGzipBodies } from './http/gzip-bodies.ts'
import { tooDeepJsonError } from './http/json-depth.ts'
import { recordRequestCommits } from './http/request-commits.ts'
import { DebugRequestLog, withRequestSerializer } from './http/request-log.ts'
import { installSerializers } from './http/response-serializers.ts'
import { isAgentRoute, isOpenRoute } from './http/route-kinds.ts'
import { installValidators } from './http/validation.ts'
import { registerOpenApi } from './openapi/openapi.ts'
import { enforceRateLimits } from './rate-limit/rate-limit.ts'
import { WHOLE_SECOND_MS } from './runs/slot-grain.ts'

export interface AppDeps {
  store: Store
  secretBox: SecretBox
  publicUrl: string
  locations?: { served: string[]; defaults: string[] }
  /** The Playwright pool and the artifact store of script checks. */
  scripts: ServiceContext['scripts']
  /** Enables /admin/v1 when set. */
  adminToken?: string
  clock?: Clock
  alerting?: ServiceContext['alerting']
  /** Source addresses listed by GET /v1/static-ips.txt and static-ipv6s.txt. */
  staticAddresses?: { ipv4: string[]; ipv6: string[] }
  /** How long a claimed run stays leased without renewal (SVC_RUNNER_LEASE_SECONDS); default 30 s. */
  runnerLeaseMs?: number
  /** SVC_RESULT_COMMIT_DELAY_MS (runs/store.ts); default 0, no wait. */
  resultCommitDelayMs?: number
  /** SVC_DEPLOYMENT_LEASE_SECONDS; default 10 minutes. */
  deploymentLeaseMs?: number
  logger?: FastifyServerOptions['logger']
  /** Caps and limits against abuse; default DEFAULT_ABUSE_LIMITS. */
  limits?: AbuseLimits
  /** Fastify's trustProxy (SVC_TRUST_PROXY): whose X-Forwarded-For names the client; off by default. */
  trustProxy?: FastifyServerOptions['trustProxy']
  /** Dashboard sessions (config SVC_SESSION_*); default DEFAULT_SESSION_SETTINGS. */
  sessions?: SessionSettings
  /** The built dashboard served at `/`; default packages/web/dist. */
  webDistDir?: string
  /** Timeouts and the connection cap of the HTTP server (SVC_HTTP_*); default DEFAULT_CONNECTION_LIMITS. */
  connectionLimits?: ConnectionLimits
}

export const BODY_LIMIT_BYTES = 1024 * 1024

/** The context every service gets, from the app's dependencies (the scheduler shares it). */
export function serviceContextOf(deps: AppDeps): ServiceContext {
  return {
    db: deps.store.db,
    engine: deps.store.engine,
    clock: deps.clock ?? systemClock,
    secretBox: deps.secretBox,
    publicUrl: deps.publicUrl,
    locations: deps.locations ?? { served: ['local'], defaults: ['local'] },
    scripts: deps.scripts,
    alerting: deps.alerting,
    runnerLeaseMs: deps.runnerLeaseMs ?? 30_000,
    resultCommitDelayMs: deps.resultCommitDelayMs ?? 0,
    slotGrain: { ms: WHOLE_SECOND_MS },
    deploymentLeaseMs: deps.deploymentLeaseMs ?? 600_000,
    limits: deps.limits ?? DEFAULT_ABUSE_LIMITS,
    sessions: deps.sessions ?? DEFAULT_SESSION_SETTINGS,
  }
}

const PLUGIN_TIMEOUT_MS = 120_000

/** Builds the whole HTTP app from its dependencies. The route table is the list of features below. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const ctx = serviceContextOf(deps)
  const limits = deps.connectionLimits ?? DEFAULT_CONNECTION_LIMITS
  const app = Fastify({
    ...connectionOptionsOf(limits),
    logger: withRequestSerializer(deps.logger),
    logController: new DebugRequestLog(),
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: requestId,
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: handleFrameworkError,
    rewriteUrl: rewriteCustomDomainUrl,
    trustProxy: deps.trustProxy ?? false,
    // Fastify's default 10 s per plugin was exceeded on a busy machine while the OpenAPI document was
    // built, and the server did not start; all plugins are ours, so this only names a real hang.
    pluginTimeout: PLUGIN_TIMEOUT_MS,
  }).withTypeProvider<TypeBoxTypeProvider>()
  capConnections(app, limits)

  installValidators(app)
  installSerializers(app)
  acceptEmptyJsonBodies(app)
  acceptGzipBodies(app)
  app.setErrorHandler(handleError)
  recordRequestCommits(app)
  const webDistDir = deps.webDistDir ?? DEFAULT_WEB_DIST_DIR
  await registerDashboardHosting(app)
  app.setNotFoundHandler(serveDashboardOr(handleNotFound, webDistDir))
  app.decorateRequest('auth', undefined)
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })

  await app.register(publicApi(ctx, deps.staticAddresses ?? { ipv4: [], ipv6: [] }))
  serveLiveResults(app, ctx)
  if (deps.adminToken) await app.register(adminApi(ctx, deps.adminToken))
  return app
}

/**
 * Clients that send `content-type: application/json` on every request (a DELETE, a trigger) send it
 * with no body too: an empty body (or one of only whitespace) is no body. Routes that take none run; routes that need one answer
 * their usual 400 naming `body`. Anything else is parsed as Fastify does (prototype poisoning refused),
 * once its nesting is known to be shallow enough for the recursive walks over it (validation, scrubbing).
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // JSON's own whitespace around nothing ("  \n" from a client that adds a newline) is no body too.
    if (/^[ \t\n\r]*$/.test(body as string)) return done(null, undefined)
    const tooDeep = tooDeepJsonError(request, body as string)
    if (tooDeep) return done(tooDeep, undefined)
    return parseJson(request, body.toString(), done)
  })
}

/** The public API: every route here needs an API key unless API.md lists it as open. */
function publicApi(
  ctx: ServiceContext,
  staticAddresses: { ipv4: string[]; ipv6: string[] },
): FastifyPluginAsync {
  return async (app) => {
    await registerOpenApi(app, {
      audience: 'tenant',
      title: 'svc API',
      description: `Synthetic monitoring: checks, results, alerting, status pages and analytics.\n\n[Open the dashboard](${ctx.publicUrl}/)`,
      publicUrl: ctx.publicUrl,
      tags: PUBLIC_API_TAGS,
    })
    app.addHook('onRequest', async (request, reply) => {
      const route = request.routeOptions.url ?? request.url
      // Agents authenticate with private-location keys, in their own routes.
      if (isOpenRoute(route) || isAgentRoute(route)) return
      // Every request of a live key is counted (and gets x-ratelimit-*), a 400 or 403 included.
      request.auth = await authenticate(ctx, request, (key) => enforceRateLimits(ctx, key, request, reply))
    })

    await registerPublicRoutes(app, ctx, staticAddresses)

    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
    app.get('/swagger.json', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('deprecation', 'true')
        .header('link', '</openapi.json>; rel="successor-version"')
        .redirect('/openapi.json', 308),
    )
    await app.register(swaggerUi, { routePrefix: '/docs' })
  }
}

/** The public API's route plugins, in the order their routes appear in its OpenAPI document. */
async function registerPublicRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  staticAddresses: { ipv4: string[]; ipv6: string[] },
): Promise<void> {
  await app.register(sessionsRoutes, { ctx })
  await app.register(accountsRoutes, { ctx })
  await app.register(accountByIdRoutes, { ctx })
  await app.register(nextAccountsRoutes, { ctx })
  await app.register(apiKeysRoutes, { ctx })
  await app.register(variablesRoutes, { ctx })
  await app.register(checksRoutes, { ctx })
  await app.register(checkVersionsRoutes, { ctx })
  await app.register(checkGroupsRoutes, { ctx })
  await app.register(checkGroupsV2Routes, { ctx })
  await app.register(checkResultsRoutes, { ctx })
  await app.register(checkStatusesRoutes, { ctx })
  await app.register(heartbeatRoutes, { ctx })
  await app.register(locationsRoutes, { ctx })
  await app.register(runtimesRoutes)
  await app.register(alertChannelsRoutes, { ctx })
  await app.register(alertNotificationsRoutes, { ctx })
  await app.register(maintenanceWindowsRoutes, { ctx })
  await app.register(maintenanceOccurrencesRoutes, { ctx })
  await app.register(privateLocationsRoutes, { ctx })
  await app.register(staticAddressesRoutes, { addresses: staticAddresses, locations: ctx.locations.served })
  await app.register(agentProtocolRoutes, { ctx })
  await app.register(statusPageServicesRoutes, { ctx })
  await app.register(statusPagesRoutes, { ctx })
  await app.register(hostedStatusPagesRoutes, { ctx })
  await app.register(incidentsRoutes, { ctx })
  await app.register(hostedIncidentsRoutes, { ctx })
  await app.register(statusPageSubscribersRoutes, { ctx })
  await app.register(hostedSubscriptionsRoutes, { ctx })
  await app.register(statusSiteRoutes, { ctx })
  await app.register(analyticsRoutes, { ctx })
  await app.register(batchAnalyticsRoutes, { ctx })
  await app.register(errorGroupsRoutes, { ctx })
  await app.register(rootCauseAnalysesRoutes, { ctx })
  await app.register(dashboardRoutes, { ctx })
  await app.register(projectsRoutes, { ctx })
  await app.register(storedFilesRoutes, { ctx })
  await app.register(snippetsRoutes, { ctx })
  await app.register(clientCertificatesRoutes, { ctx })
  await app.register(reportingRoutes, { ctx })
  await app.register(badgesRoutes, { ctx })
  await app.register(checkAlertsRoutes, { ctx })
  await app.register(heartbeatEventsRoutes, { ctx })
  await app.register(testSessionsRoutes, { ctx })
  await app.register(hostedCliSessionRoutes, { ctx })
  await app.register(checkSessionsRoutes, { ctx })
  await app.register(triggersRoutes, { ctx })
  await app.register(dashboardsRoutes, { ctx })
  await app.register(dashboardIncidentsRoutes, { ctx })
  await app.register(dashboardSiteRoutes, { ctx })
}

/** The public API's OpenAPI tags: one per feature, in the order its document lists them. */
const PUBLIC_API_TAGS = [
  { name: 'auth', description: 'Dashboard sign-in: sessions in a cookie, passwords, sign-out' },
  { name: 'dashboard', description: 'What the dashboard’s pages read in one request' },
  { name: 'accounts', description: 'The account, its settings and members' },
  { name: 'api-keys', description: 'User and service API keys' },
  { name: 'variables', description: 'Account-level environment variables' },
  { name: 'checks', description: 'Checks of every type' },
  { name: 'check-groups', description: 'Groups whose settings their checks inherit' },
  { name: 'locations', description: 'Data-center locations served by this deployment' },
  { name: 'check-results', description: 'Results of check runs' },
  { name: 'check-statuses', description: 'Current status of each check' },
  { name: 'heartbeats', description: 'Pings of heartbeat checks (no API key)' },
  { name: 'runtimes', description: 'Runtimes of script checks and the packages they provide' },
  { name: 'alert-channels', description: 'Where alerts go: webhooks, email, Slack, SMS' },
  { name: 'maintenance-windows', description: 'Times when matching checks send no alerts' },
  { name: 'private-locations', description: 'Your own locations, served by svc agents' },
  { name: 'agent', description: 'What svc agents call, with a private-location key' },
  { name: 'status-pages', description: 'Status pages, their cards and services' },
  { name: 'incidents', description: 'Incidents of status pages and their updates' },
  { name: 'status-site', description: 'Public status pages, feeds and subscriptions (no API key)' },
  { name: 'projects', description: 'Monitoring as code: projects and their deployments' },
  { name: 'test-sessions', description: 'Checks (saved or not) run once, results streamed and kept' },
  { name: 'check-sessions', description: 'Saved checks run now from CI, waited on' },
  { name: 'triggers', description: 'Trigger URLs: run a check or group with a token' },
  {
    name: 'badges',
    description: 'Status badges of checks and groups as SVG, for READMEs (no API key)',
  },
  { name: 'dashboards', description: 'Public dashboards of check status by tag, and their incidents' },
  { name: 'snippets', description: 'Code snippets that checks and groups run as setup and teardown' },
  {
    name: 'client-certificates',
    description: 'Certificates API checks present to hosts requiring mTLS',
  },
  {
    name: 'analytics',
    description: 'Metrics of checks over time, from rollups kept as results are stored',
  },
]

function adminApi(ctx: ServiceContext, adminToken: string): FastifyPluginAsync {
  return async (app) => {
    await registerOpenApi(app, {
      audience: 'admin',
      title: 'svc admin API',
      description:
        'Operators manage users, accounts, memberships and keys. Authenticate with SVC_ADMIN_TOKEN.',
      publicUrl: ctx.publicUrl,
      tags: [],
    })
    await app.register(adminRoutes, { ctx, adminToken })
    app.get('/admin/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  }
}

/** Honours a sane incoming x-request-id (for tracing across proxies), else makes one. */
function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = request.headers['x-request-id']
  return typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID()
}
