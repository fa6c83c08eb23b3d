import { encodeMetricStats, mergeStoredMetricStats, ROLLUP_RESOLUTIONS, type RollupRange } from '@svc/core'
import { type AnalyticsRollupsTable, MERGE_STATS_FUNCTION } from '@svc/db'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `analytics_rollups` and `analytics_zones`. */

export interface RollupKey {
  resolution: number
  bucketMs: number
  location: string
  outcome: string
  statusCode: number
  pageIndex: number
}

export interface RollupDelta extends RollupKey {
  results: number
  retries: number
  /** Stored form (encodeMetricStats); never changed here, so deltas may share it. */
  stats: Uint8Array
}

const keyOf = (checkId: string, k: RollupKey) =>
  `${checkId}|${k.resolution}|${k.bucketMs}|${k.location}|${k.outcome}|${k.statusCode}|${k.pageIndex}`

const CHUNK = 500

type Pending = RollupDelta & { checkId: string }

/**
 * Adds deltas to the rollup rows of the checks they are keyed by, a few statements for any number of
 * checks. SQLite (a single writer) adds them in the upsert itself, merging the stored stats with its
 * `MERGE_STATS_FUNCTION`. On PostgreSQL the rows are created first (empty), then read and locked in
 * key order, merged here and written back, so concurrent results never lose each other's counts and
 * never deadlock.
 */
export async function addToRollups(
  ctx: ServiceContext,
  deltasByCheck: Map<string, RollupDelta[]>,
): Promise<void> {
  const merged = mergedDeltas(deltasByCheck)
  if (merged.size === 0) return
  const rows = [...merged.keys()].sort().map((key) => merged.get(key) as Pending)
  if (ctx.engine !== 'postgres') {
    await writeRows(ctx, rows, 'add')
    return
  }
  await createEmptyRows(ctx, rows)
  const checkIds = [...new Set(rows.map((row) => row.checkId))]
  for (const row of await lockStoredRows(ctx, checkIds, rangesOf(rows))) {
    const delta = merged.get(keyOf(row.check_id, keyOfRow(row)))
    if (!delta || row.results === 0) continue
    delta.results += Number(row.results)
    delta.retries += Number(row.retries)
    delta.stats = mergeStoredMetricStats(delta.stats, row.stats)
  }
  await writeRows(ctx, rows, 'replace')
}

/** The deltas summed per rollup row. */
function mergedDeltas(deltasByCheck: Map<string, RollupDelta[]>): Map<string, Pending> {
  const merged = new Map<string, Pending>()
  for (const [checkId, deltas] of deltasByCheck) {
    for (const delta of deltas) {
      const key = keyOf(checkId, delta)
      const into = merged.get(key)
      if (!into) {
        merged.set(key, { ...delta, checkId })
        continue
      }
      into.results += delta.results
      into.retries += delta.retries
      into.stats = mergeStoredMetricStats(into.stats, delta.stats)
    }
  }
  return merged
}

type BucketRange = { resolution: number; fromMs: number; toMs: number }

/** Per resolution, the span of buckets the rows fall in. */
function rangesOf(rows: Pending[]): BucketRange[] {
  const spans = new Map<number, { fromMs: number; toMs: number }>()
  for (const row of rows) {
    const span = spans.get(row.resolution)
    if (!span) spans.set(row.resolution, { fromMs: row.bucketMs, toMs: row.bucketMs + 1 })
    else {
      span.fromMs = Math.min(span.fromMs, row.bucketMs)
      span.toMs = Math.max(span.toMs, row.bucketMs + 1)
    }
  }
  return [...spans].map(([resolution, span]) => ({ resolution, ...span }))
}

async function createEmptyRows(ctx: ServiceContext, rows: Pending[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await ctx.db
      .insertInto('analytics_rollups')
      .values(rows.slice(i, i + CHUNK).map((row) => toRow(row.checkId, row, 0, 0, EMPTY)))
      .onConflict((oc) => oc.doNothing())
      .execute()
  }
}

/** One statement, every range (PostgreSQL combines the index scans), rows locked in key order. */
function lockStoredRows(ctx: ServiceContext, checkIds: string[], ranges: BucketRange[]) {
  return ctx.db
    .selectFrom('analytics_rollups')
    .select(['check_id', 'resolution', 'bucket_ms', 'location', 'outcome', 'status_code', 'page_index'])
    .select(['results', 'retries', 'stats'])
    .where('check_id', 'in', checkIds)
    .where((eb) =>
      eb.or(
        ranges.map((range) =>
          eb.and([
            eb('resolution', '=', range.resolution),
            eb('bucket_ms', '>=', range.fromMs),
            eb('bucket_ms', '<', range.toMs),
          ]),
        ),
      ),
    )
    .orderBy('check_id')
    .orderBy('resolution')
    .orderBy('bucket_ms')
    .orderBy('location')
    .orderBy('outcome')
    .orderBy('status_code')
    .orderBy('page_index')
    .forUpdate()
    .execute()
}

/** Upserts `rows`: a stored row becomes the row given (`replace`) or the sum of both (`add`). */
async function writeRows(ctx: ServiceContext, rows: Pending[], mode: 'replace' | 'add'): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await ctx.db
      .insertInto('analytics_rollups')
      .values(
        rows.slice(i, i + CHUNK).map((row) => toRow(row.checkId, row, row.results, row.retries, row.stats)),
      )
      .onConflict((oc) =>
        oc
          .columns([
            'check_id',
            'resolution',
            'bucket_ms',
            'location',
            'outcome',
            'status_code',
            'page_index',
          ])
          .doUpdateSet((eb) =>
            mode === 'replace'
              ? {
                  results: eb.ref('excluded.results'),
                  retries: eb.ref('excluded.retries'),
                  stats: eb.ref('excluded.stats'),
                }
              : {
                  results: eb('analytics_rollups.results', '+', eb.ref('excluded.results')),
                  retries: eb('analytics_rollups.retries', '+', eb.ref('excluded.retries')),
                  stats: eb.fn<Uint8Array>(MERGE_STATS_FUNCTION, [
                    eb.ref('analytics_rollups.stats'),
                    eb.ref('excluded.stats'),
                  ]),
                },
          ),
      )
      .execute()
  }
}

const EMPTY = encodeMetricStats(new Map())

function toRow(
  checkId: string,
  key: RollupKey,
  results: number,
  retries: number,
  stats: Uint8Array,
): AnalyticsRollupsTable {
  return {
    check_id: checkId,
    resolution: key.resolution,
    bucket_ms: key.bucketMs,
    location: key.location,
    outcome: key.outcome,
    status_code: key.statusCode,
    page_index: key.pageIndex,
    results,
    retries,
    // pg writes a Buffer as bytea; node:sqlite takes any Uint8Array.
    stats: Buffer.from(stats.buffer, stats.byteOffset, stats.byteLength),
  }
}

function keyOfRow(
  row: Pick<
    AnalyticsRollupsTable,
    'resolution' | 'bucket_ms' | 'location' | 'outcome' | 'status_code' | 'page_index'
  >,
): RollupKey {
  return {
    resolution: Number(row.resolution),
    bucketMs: Number(row.bucket_ms),
    location: row.location,
    outcome: row.outcome,
    statusCode: Number(row.status_code),
    pageIndex: Number(row.page_index),
  }
}

/** One range of one resolution: a range scan of the primary key (an OR of ranges would scan the check). */
function rangeQuery(ctx: ServiceContext, checkId: string, range: RollupRange) {
  return ctx.db
    .selectFrom('analytics_rollups')
    .where('check_id', '=', checkId)
    .where('resolution', '=', range.resolution)
    .where('bucket_ms', '>=', range.fromMs)
    .where('bucket_ms', '<', range.toMs)
}

export interface RollupRow extends RollupKey {
  results: number
  retries: number
  stats: Uint8Array | null
}

/**
 * The rollup rows of `ranges`: whole runs (page -1) or browser pages (0 and up), of the given outcomes
 * (all when undefined); `stats` only when asked for, since availability and retries don't need them.
 */
export async function readRollups(
  ctx: ServiceContext,
  checkId: string,
  ranges: RollupRange[],
  options: { pages: boolean; outcomes?: string[]; withStats: boolean },
): Promise<RollupRow[]> {
  const rows: RollupRow[] = []
  for (const range of ranges) {
    let query = rangeQuery(ctx, checkId, range)
      .select(['resolution', 'bucket_ms', 'location', 'outcome', 'status_code', 'page_index'])
      .select(['results', 'retries'])
      .where('page_index', options.pages ? '>=' : '=', options.pages ? 0 : -1)
    if (options.outcomes) query = query.where('outcome', 'in', options.outcomes)
    if (!options.withStats) {
      for (const row of await query.execute()) {
        rows.push({
          ...keyOfRow(row),
          results: Number(row.results),
          retries: Number(row.retries),
          stats: null,
        })
      }
      continue
    }
    for (const row of await query.select('stats').execute()) {
      rows.push({
        ...keyOfRow(row),
        results: Number(row.results),
        retries: Number(row.retries),
        stats: row.stats,
      })
    }
  }
  return rows
}

/** Whole-run hourly rollups of many checks in [fromMs, toMs): one statement per 1,000 checks. */
export async function readHourlyRunRollups(
  ctx: ServiceContext,
  checkIds: string[],
  fromMs: number,
  toMs: number,
) {
  const rows = []
  for (let at = 0; at < checkIds.length; at += 1000) {
    rows.push(
      ...(await ctx.db
        .selectFrom('analytics_rollups')
        .select(['check_id', 'bucket_ms', 'outcome', 'results', 'stats'])
        .where('check_id', 'in', checkIds.slice(at, at + 1000))
        .where('resolution', '=', 60)
        .where('page_index', '=', -1)
        .where('bucket_ms', '>=', fromMs)
        .where('bucket_ms', '<', toMs)
        .execute()),
    )
  }
  return rows.map((row) => ({ ...row, bucket_ms: Number(row.bucket_ms), results: Number(row.results) }))
}

/** Deletes the rollups of an account's checks that end at or before `cutoffMs`; answers how many went. */
export async function deleteRollupsBefore(
  ctx: ServiceContext,
  accountId: string,
  cutoffMs: number,
): Promise<number> {
  let deleted = 0
  for (const resolution of ROLLUP_RESOLUTIONS) {
    // A local day row is at most 25 hours long.
    const lengthMs = resolution === 1440 ? 25 * 3_600_000 : resolution * 60_000
    const result = await ctx.db
      .deleteFrom('analytics_rollups')
      .where('check_id', 'in', (eb) =>
        eb.selectFrom('checks').select('id').where('account_id', '=', accountId),
      )
      .where('resolution', '=', resolution)
      .where('bucket_ms', '<=', cutoffMs - lengthMs)
      .executeTakeFirst()
    deleted += Number(result.numDeletedRows)
  }
  return deleted
}

/** Every rollup row of a check (tests compare them with what the results say). */
export async function countRollups(ctx: ServiceContext, checkId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('analytics_rollups')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('check_id', '=', checkId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The zone a check's day rows follow, and since when they are complete. */
export async function findZone(ctx: ServiceContext, checkId: string) {
  const row = await ctx.db
    .selectFrom('analytics_zones')
    .select(['zone', 'since_ms'])
    .where('check_id', '=', checkId)
    .executeTakeFirst()
  return row && { zone: row.zone, sinceMs: Number(row.since_ms) }
}

/** The zones of `checkIds` that have one. */
export async function findZones(ctx: ServiceContext, checkIds: string[]) {
  if (checkIds.length === 0) return new Map<string, { zone: string; sinceMs: number }>()
  const rows = await ctx.db
    .selectFrom('analytics_zones')
    .select(['check_id', 'zone', 'since_ms'])
    .where('check_id', 'in', checkIds)
    .execute()
  return new Map(rows.map((row) => [row.check_id, { zone: row.zone, sinceMs: Number(row.since_ms) }]))
}

/** Sets the zones of checks (each named once), in one statement per `CHUNK`. */
export async function saveZones(
  ctx: ServiceContext,
  zones: { checkId: string; zone: string; sinceMs: number }[],
): Promise<void> {
  for (let i = 0; i < zones.length; i += CHUNK) {
    await ctx.db
      .insertInto('analytics_zones')
      .values(
        zones.slice(i, i + CHUNK).map((z) => ({ check_id: z.checkId, zone: z.zone, since_ms: z.sinceMs })),
      )
      .onConflict((oc) =>
        oc.column('check_id').doUpdateSet((eb) => ({
          zone: eb.ref('excluded.zone'),
          since_ms: eb.ref('excluded.since_ms'),
        })),
      )
      .execute()
  }
}
