/**
 * Routes anyone may call without a key (API.md, "Open routes"); the dashboard's sign-in routes read
 * their credentials (a password, a key, the session cookie, a link token) themselves.
 */
const OPEN_ROUTES = [
  /^\/openapi\.json$/,
  /^\/swagger\.json$/,
  /^\/docs(\/|$)/,
  /^\/ping\//,
  /^\/status\//,
  /^\/dashboards\//,
  /^\/v1\/auth\//,
  /^\/v1\/badges\//,
  // Trigger URLs: a token in the query, else an API key, checked by the routes themselves.
  /^\/v1\/triggers\/(checks|check-groups)\/[^/]+\/run$/,
]

export function isOpenRoute(routeUrl: string): boolean {
  return OPEN_ROUTES.some((pattern) => pattern.test(routeUrl))
}

/** The agent protocol: bearer private-location keys, checked by its own routes. */
export function isAgentRoute(routeUrl: string): boolean {
  return routeUrl.startsWith('/agent/')
}
