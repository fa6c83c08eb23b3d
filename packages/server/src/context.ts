import type { Readable } from 'node:stream'
import type { Database, Engine } from '@svc/db'
import type { PlaywrightPool } from '@svc/runner'
import type { Kysely } from 'kysely'
import type { Clock } from './clock.ts'
import type { AbuseLimits, DeliveryConfig, SessionSettings } from './config.ts'
import type { SecretBox } from './crypto/secret-box.ts'

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
  /**
   * At spread load, how long a quiet pass may wait for others to share its commit
   * (SVC_RESULT_COMMIT_DELAY_MS; runs/store.ts). Unset or 0: none (tests awaiting a run).
   */
  resultCommitDelayMs?: number
  /**
   * The grain in ms this process plans checks' slots on: whole seconds from the start, coarser while its
   * scheduler runs few checks (runs/slot-grain.ts).
   */
  slotGrain: { ms: number }
  /** How long a project deployment's node may go silent before the deployment counts as failed. */
  deploymentLeaseMs: number
  /** How alerts reach SMTP and SMS providers; unset: email and SMS deliveries fail as not configured. */
  alerting?: DeliveryConfig
  /** Caps and limits against abuse (config.ts; docs/security.md). */
  limits: AbuseLimits
  /** Dashboard sessions' lifetimes and set-password links'. */
  sessions: SessionSettings
}

export const isoNow = (ctx: Pick<ServiceContext, 'clock'>) => ctx.clock.now().toISOString()

/** The artifacts of one result, as kept by a store. */
export interface StoredResult {
  checkId: string
  resultId: string
  /** When its newest artifact was written. */
  modifiedMs: number
}

/** A local directory a run writes its artifacts into before they go to the store. */
export interface StagedRun {
  dir: string
  /** Moves what the run wrote into the store; the staging directory is gone afterwards. */
  commit(): Promise<void>
  /** Drops what the run wrote. */
  discard(): Promise<void>
}

/**
 * Where the screenshots, traces and videos of script runs live, as `<checkId>/<resultId>/<path>`: the data
 * directory, or an S3-compatible bucket (so that every node of a deployment serves every run's).
 * `path` is relative to the result and never leaves it.
 */
export interface ArtifactStore {
  readonly kind: 'local' | 's3'
  /** Bytes a run's artifacts may add up to (runs are cut there, agent uploads refused past it). */
  readonly limitBytes: number
  stage(checkId: string, resultId: string): Promise<StagedRun>
  put(checkId: string, resultId: string, path: string, bytes: Buffer): Promise<void>
  /** The artifact's bytes, or undefined when there is no such artifact. */
  open(checkId: string, resultId: string, path: string): Promise<Readable | undefined>
  /** What a result's artifacts add up to, in bytes. */
  size(checkId: string, resultId: string): Promise<number>
  removeResult(checkId: string, resultId: string): Promise<void>
  removeCheck(checkId: string): Promise<void>
  listResults(): Promise<StoredResult[]>
}
