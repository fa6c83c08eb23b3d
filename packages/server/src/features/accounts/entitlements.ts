import { CHECK_PATHS } from '@svc/core'
import { type Static, Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'
import { GLOBAL_RATE_LIMIT } from '../../rate-limit/rate-limit.ts'

const Entitlement = Type.Object({
  key: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: Type.Union([Type.Literal('flag'), Type.Literal('metered')]),
  enabled: Type.Boolean(),
  quantity: Type.Optional(Type.Integer({ minimum: 0, description: 'The limit; absent: unlimited.' })),
})

/** The hosted product's entitlements record, with what this install really allows and limits. */
export const Entitlements = Type.Object(
  {
    plan: Type.String(),
    planDisplayName: Type.String(),
    locations: Type.Object({
      all: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), available: Type.Boolean() })),
    }),
    entitlements: Type.Array(Entitlement),
  },
  { title: 'Entitlements' },
)
export type Entitlements = Static<typeof Entitlements>
type Entitlement = Static<typeof Entitlement>

/** Limits svc enforces on every account (the spec's, and the install's config). */
function limitsOf(ctx: ServiceContext): Entitlement[] {
  const metered = (key: string, name: string, description: string, quantity?: number): Entitlement => ({
    key,
    name,
    description,
    type: 'metered',
    enabled: true,
    ...(quantity === undefined ? {} : { quantity }),
  })
  return [
    metered(
      'API_RATE_LIMIT',
      'API requests per key',
      'Requests per 60 seconds of one API key.',
      GLOBAL_RATE_LIMIT,
    ),
    metered(
      'ACCOUNT_API_RATE_LIMIT',
      'API requests per account',
      'Requests per 60 seconds of all the account’s keys together (SVC_ACCOUNT_RATE_LIMIT).',
      ctx.limits.accountRateLimit,
    ),
    metered('USER_API_KEYS', 'User API keys', 'Live keys one user may hold.', ctx.limits.keysPerUser),
    metered(
      'SERVICE_API_KEYS',
      'Service API keys',
      'Live service keys the account may hold.',
      ctx.limits.serviceKeysPerAccount,
    ),
    metered('CHECK_ENVIRONMENT_VARIABLES', 'Variables per check', 'Environment variables on one check.', 50),
    metered('CHECKS', 'Checks', 'Checks of every type: unlimited.'),
    metered('PRIVATE_LOCATIONS', 'Private locations', 'Private locations and their agents: unlimited.'),
    metered('STATUS_PAGES', 'Status pages', 'Status pages: unlimited.'),
    metered('MEMBERS', 'Members', 'Users of the account: unlimited.'),
  ]
}

/** What this install serves: each check type, and the features an account may use. */
function featuresOf(): Entitlement[] {
  const flag = (key: string, name: string, description: string): Entitlement => ({
    key,
    name,
    description,
    type: 'flag',
    enabled: true,
  })
  return [
    ...Object.values(CHECK_PATHS).map((type) =>
      flag(`${type}_CHECKS`, `${type} checks`, `Create and run ${type} checks.`),
    ),
    flag(
      'HIGH_FREQUENCY_CHECKS',
      'High-frequency checks',
      'API, URL, TCP, DNS, ICMP and SSL checks every 10, 20 or 30 s.',
    ),
    flag('CLIENT_CERTIFICATES', 'Client certificates', 'API checks present client certificates (mTLS).'),
    flag('PRIVATE_LOCATIONS_AGENTS', 'Private location agents', 'Checks run by svc agents on your networks.'),
  ]
}

/** Every account of a self-hosted install has the same entitlements: no plans, the install's limits. */
export function entitlementsOf(ctx: ServiceContext): Entitlements {
  return {
    plan: 'self-hosted',
    planDisplayName: 'svc (self-hosted)',
    locations: { all: ctx.locations.served.map((id) => ({ id, name: id, available: true })) },
    entitlements: [...limitsOf(ctx), ...featuresOf()],
  }
}
