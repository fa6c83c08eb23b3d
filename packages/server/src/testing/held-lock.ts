import { setTimeout as sleep } from 'node:timers/promises'
import type { Database } from '@svc/db'
import { type Kysely, sql, type Transaction } from 'kysely'
import type { ServiceContext } from '../context.ts'

/**
 * Forces one interleaving of `requests` on PostgreSQL: a transaction of the test runs `lock` and holds
 * what it took while the requests start one after another, each once every one before it has answered
 * or waits on that transaction (directly, or on a request that does). Then it lets go, and answers
 * what each request answered, in order. So a request reaches the store after the one before it took
 * its locks, with no sleep timing it. On SQLite (one writer at a time) they run one after another.
 */
export async function inTurnWhileHeld<T>(
  ctx: Pick<ServiceContext, 'db' | 'engine'>,
  lock: (tx: Transaction<Database>) => Promise<unknown>,
  requests: (() => Promise<T>)[],
): Promise<T[]> {
  if (ctx.engine !== 'postgres') {
    const answers: T[] = []
    for (const request of requests) answers.push(await request())
    return answers
  }
  const holder = Promise.withResolvers<number>()
  const release = Promise.withResolvers<void>()
  const held = ctx.db.transaction().execute(async (tx) => {
    await lock(tx)
    holder.resolve((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx)).rows[0]?.pid ?? 0)
    await release.promise
  })
  const pid = await holder.promise
  let settled = 0
  const sent: Promise<T>[] = []
  try {
    for (const request of requests) {
      const answer = request().finally(() => {
        settled++
      })
      // Awaited below, with the others: a failure must not count as unhandled before then.
      answer.catch(() => {})
      sent.push(answer)
      while (settled + (await waitingOn(ctx.db, pid)) < sent.length) await sleep(5)
    }
  } finally {
    release.resolve()
    await held
  }
  return Promise.all(sent)
}

/**
 * A `lock` for `inTurnWhileHeld` that holds `table` against writes: a save writing it, or a deletion
 * cascading into it, waits there.
 */
export const holdingTable = (table: string) => (tx: Transaction<Database>) =>
  sql`lock table ${sql.table(table)} in exclusive mode`.execute(tx)

/** How many sessions wait on session `pid`, directly or through another waiting one. */
async function waitingOn(db: Kysely<Database>, pid: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with recursive blocked(pid) as (
      select pid from pg_stat_activity where ${pid}::int = any(pg_blocking_pids(pid))
      union
      select a.pid from pg_stat_activity a join blocked b on b.pid = any(pg_blocking_pids(a.pid))
    )
    select count(*)::int as n from blocked`.execute(db)
  return rows[0]?.n ?? 0
}
