import { randomUUID } from 'node:crypto'
import type { CheckResultsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { writeResult } from '../../runs/store.ts'

/** A deterministic pseudo-random stream, so a failing seed can be replayed. */
export function random(seed: number) {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648
  }
}

export interface SeedResult {
  atMs: number
  location: string
  failed: boolean
  responseTime: number
  attempts?: number
  statusCode?: number | null
  errorType?: string | null
  errorMessage?: string | null
  /** The type's detail object (`{urlCheckResult: ...}`), as the runner would report it. */
  detail: Record<string, unknown>
}

/** Stores a final result through the one write path, as the scheduler does (so rollups fill). */
export async function storeSeedResult(
  ctx: ServiceContext,
  check: { id: string; accountId: string; checkType: string },
  result: SeedResult,
): Promise<string> {
  const id = randomUUID()
  const at = new Date(result.atMs).toISOString()
  const row: CheckResultsTable = {
    id,
    job_id: `seed:${id}`,
    check_id: check.id,
    account_id: check.accountId,
    check_type: check.checkType,
    run_location: result.location,
    started_at: at,
    stopped_at: new Date(result.atMs + Math.round(result.responseTime)).toISOString(),
    response_time: result.responseTime,
    has_failures: result.failed,
    has_errors: result.failed && result.errorType !== 'ASSERTION',
    is_degraded: false,
    over_max_response_time: false,
    attempts: result.attempts ?? 1,
    result_type: 'FINAL',
    // Left out: an assertion failure; null: a failure without an error (a passing `shouldFail` check).
    error_type: result.failed ? (result.errorType === undefined ? 'ASSERTION' : result.errorType) : null,
    error_message: result.failed
      ? result.errorMessage === undefined
        ? 'Status code 500 is not below 400'
        : result.errorMessage
      : null,
    status_code: result.statusCode ?? null,
    detail: JSON.stringify(result.detail),
    created_at: at,
    is_cancelled: false,
  }
  await writeResult(ctx, { row })
  return id
}

/** The exact aggregates the API's suffixes name, from the values themselves. */
export function exactAggregates(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b)
  const n = sorted.length
  const sum = values.reduce((a, b) => a + b, 0)
  const mean = sum / n
  const at = (q: number) => sorted[Math.floor(q * (n - 1))] as number
  return {
    avg: mean,
    sum,
    min: sorted[0] as number,
    max: sorted[n - 1] as number,
    stddev: Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / n),
    median: at(0.5),
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
  }
}

export const PERCENTILES = new Set(['median', 'p50', 'p90', 'p95', 'p99'])
