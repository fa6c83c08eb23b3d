import type { Database, Engine } from '@svc/db'
import type { PlaywrightPool } from '@svc/runner'
import type { Kysely } from 'kysely'
import type { Clock } from './clock.ts'
import type { SecretBox } from './crypto/secret-box.ts'
import type { DeliveryConfig } from './features/alerting/delivery.ts'
import type { ArtifactStore } from './features/artifacts/artifact-store.ts'

/** What every service is given: the store, the clock and the secret box. Built once in app.ts. */
export interface ServiceContext {
  db: Kysely<Database>
  engine: Engine
  clock: Clock
  secretBox: SecretBox
  publicUrl: string
  locations: { served: string[]; defaults: string[] }
  /** Runs browser, multi-step and suite checks; their artifacts live in `artifacts` (data dir or bucket). */
  scripts: { pool: PlaywrightPool; artifacts: ArtifactStore }
  /** How long a claimed run stays leased without renewal, in this process or on an agent. */
  runnerLeaseMs: number
  /** How long a project deployment's node may go silent before the deployment counts as failed. */
  deploymentLeaseMs: number
  /** How alerts reach SMTP and SMS providers; unset: email and SMS deliveries fail as not configured. */
  alerting?: DeliveryConfig
  /** Caps and limits against abuse (config.ts; docs/security.md). */
  limits: AbuseLimits
}

/** Caps and limits against abuse (most tunable in config.ts); docs/security.md explains each. */
export interface AbuseLimits {
  /** Requests per 60 s of one account, all its keys together (SVC_ACCOUNT_RATE_LIMIT). */
  accountRateLimit: number
  /** Live user keys one user may hold (SVC_MAX_KEYS_PER_USER). */
  keysPerUser: number
  /** Live service keys one account may hold (SVC_MAX_SERVICE_KEYS_PER_ACCOUNT). */
  serviceKeysPerAccount: number
  /** Failed sign-ins of one kind from one client address before it gets 429 (SVC_FAILED_AUTH_*). */
  failedAuth: { max: number; windowSeconds: number }
  /** Subscribe, confirm and unsubscribe requests of one client address: far more than a person sends. */
  statusForms: { max: number; windowSeconds: number }
}

export const DEFAULT_ABUSE_LIMITS: AbuseLimits = {
  accountRateLimit: 1200,
  keysPerUser: 100,
  serviceKeysPerAccount: 100,
  failedAuth: { max: 10, windowSeconds: 300 },
  statusForms: { max: 20, windowSeconds: 600 },
}

export const isoNow = (ctx: Pick<ServiceContext, 'clock'>) => ctx.clock.now().toISOString()
