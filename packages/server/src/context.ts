import type { Database, Engine } from '@svc/db'
import type { PlaywrightPool } from '@svc/runner'
import type { Kysely } from 'kysely'
import type { Clock } from './clock.ts'
import type { SessionSettings } from './config.ts'
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
  /** How alerts reach SMTP and SMS providers; unset: email and SMS deliveries fail as not configured. */
  alerting?: DeliveryConfig
  /** Dashboard sessions' lifetimes and set-password links'. */
  sessions: SessionSettings
}

export const isoNow = (ctx: Pick<ServiceContext, 'clock'>) => ctx.clock.now().toISOString()
