import { type Kysely, sql } from 'kysely'
import type { Engine } from '../engine.ts'

/**
 * Minute rollup rows only for heartbeats (issue 31: bytes per result). Every other check's minute buckets
 * are answered from its results (analytics/minute-rows.ts): the minute row of a check that runs once a
 * minute was a second copy of its result, about 100 of a passing result's 400 bytes. Hour and day rows
 * stay as they are; the minute rows of other checks go.
 */
export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await sql`delete from analytics_rollups where resolution = 1
    and check_id in (select id from checks where check_type <> 'HEARTBEAT')`.execute(db)
}
