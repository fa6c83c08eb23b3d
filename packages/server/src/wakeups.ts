import { EventEmitter } from 'node:events'
import { listenToStore } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from './context.ts'

/**
 * Named wake-ups, so that background workers wait on work instead of polling for it: a write raises
 * its name, and the worker that handles such rows sleeps until it is raised or its next due time comes.
 * - In this process, through an emitter.
 * - On PostgreSQL, also as a NOTIFY, which every node listening (this one too) receives once the
 *   writing transaction commits. `listenForWakeups` turns those back into wake-ups here.
 * - A SQLite store has one server process; what other processes write (a `npm run runner` beside it)
 *   is found by each worker's fallback look, at most `FALLBACK_SQLITE_MS` later.
 */
export type WakeupName =
  | 'alerts'
  | 'subscriber-mail'
  | 'root-cause-analyses'
  | 'session-runs'
  | 'schedule'
  /** Not a worker's: drops the caches of what result folds read (fold-reads.ts). */
  | 'fold-reads'

const WAKEUP_NAMES: WakeupName[] = [
  'alerts',
  'subscriber-mail',
  'root-cause-analyses',
  'session-runs',
  'schedule',
  'fold-reads',
]
const CHANNEL = 'svc_wakeups'

/** The longest a worker sleeps with nothing due: only for writes no wake-up reached. */
export const FALLBACK_SQLITE_MS = 10_000
export const FALLBACK_POSTGRES_MS = 60_000

/** How soon a worker looks again at a row due but held by another node. */
const BUSY_ELSEWHERE_MS = 1000

const local = new EventEmitter().setMaxListeners(0)
/** Listeners to the store's notifications in this process. */
let listening = 0

/**
 * Wakes the workers of `name`, here and on every node. Inside a PostgreSQL transaction the wake-up
 * comes once it commits (a worker woken earlier would not see the rows yet), through the listener
 * that every server and runner process starts; a process without one (a test, a bench) is woken at
 * once, before the commit. SQLite runs one write transaction at a time, so a woken worker's reads
 * wait for the commit anyway. `dueMs`: when the rows written fall due (the earliest), so that a worker
 * sleeping until sooner than that need not look.
 */
export async function raiseWakeup(
  ctx: Pick<ServiceContext, 'db' | 'engine'>,
  name: WakeupName,
  dueMs?: number,
): Promise<void> {
  if (ctx.engine === 'postgres') {
    const payload = dueMs === undefined ? name : `${name}@${dueMs}`
    if (!ctx.db.isTransaction) {
      await sql`select pg_notify(${CHANNEL}, ${payload})`.execute(ctx.db)
    } else {
      // Once per transaction, unless a later raise is due sooner: an update mailing every subscriber
      // queues thousands of rows in one.
      const raised = raisedIn.get(ctx.db) ?? new Map<WakeupName, number>()
      const earliest = dueMs ?? Number.NEGATIVE_INFINITY
      if ((raised.get(name) ?? Number.POSITIVE_INFINITY) <= earliest) return
      raised.set(name, earliest)
      raisedIn.set(ctx.db, raised)
      await sql`select pg_notify(${CHANNEL}, ${payload})`.execute(ctx.db)
      if (listening > 0) return
    }
  }
  local.emit(name, dueMs)
}

/** The wake-ups each open PostgreSQL transaction raised already, with the earliest due time of each. */
const raisedIn = new WeakMap<object, Map<WakeupName, number>>()

/** Calls `wake` on each raise of `name` (with its due time, if it said); answers how to stop. */
export function onWakeup(name: WakeupName, wake: (dueMs?: number) => void): () => void {
  local.on(name, wake)
  return () => local.off(name, wake)
}

/** How long a worker with nothing due sleeps on `ctx`'s store before it looks anyway. */
export function fallbackMsOf(ctx: Pick<ServiceContext, 'engine'>): number {
  return ctx.engine === 'postgres' ? FALLBACK_POSTGRES_MS : FALLBACK_SQLITE_MS
}

/**
 * Receives the wake-ups other nodes raise (PostgreSQL; nothing to do on SQLite). Once listening,
 * and again after a lost connection, every name is raised here: what was sent meanwhile never arrives.
 */
export function listenForWakeups(
  databaseUrl: string,
  log: { warn(details: object, message: string): void },
): { ready: Promise<void>; close(): Promise<void> } {
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) return { ready: Promise.resolve(), close: async () => {} }
  listening++
  const listener = listenToStore(databaseUrl, CHANNEL, {
    message: (payload) => {
      const [name, due] = payload.split('@')
      const dueMs = due === undefined ? undefined : Number(due)
      if ((WAKEUP_NAMES as string[]).includes(name as string)) local.emit(name as string, dueMs)
    },
    listening: () => {
      for (const name of WAKEUP_NAMES) local.emit(name)
    },
    error: (error) =>
      log.warn({ err: error }, 'listening for wake-ups from other nodes failed: trying again'),
  })
  return {
    ready: listener.ready,
    async close() {
      listening--
      await listener.close()
    },
  }
}

/**
 * Runs `pass` once at start, then again on a wake-up of `names` or when the time `pass` answered
 * comes (the next row due; undefined: none), and at the latest after the fallback. One pass at a
 * time: a wake-up during a pass runs another right after it.
 */
export function wakeLoop(
  ctx: Pick<ServiceContext, 'engine' | 'clock'>,
  options: {
    names: WakeupName[]
    pass(): Promise<number | undefined>
    log: { error(details: object, message: string): void }
    what: string
    fallbackMs?: number
  },
): { start(): void; stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let again = false
  let stopped = true
  let offs: (() => void)[] = []
  const fallbackMs = options.fallbackMs ?? fallbackMsOf(ctx)

  const run = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    clearTimeout(timer)
    running = options
      .pass()
      .catch((error: unknown) => {
        options.log.error({ err: error }, `${options.what} failed`)
        return undefined
      })
      .then((dueMs) => {
        running = undefined
        if (stopped) return
        if (again) {
          again = false
          return run()
        }
        const untilDueMs = (dueMs ?? Number.POSITIVE_INFINITY) - ctx.clock.now().getTime()
        // Due already, yet not taken by this pass: another node holds it for now.
        const sleepMs = Math.min(fallbackMs, untilDueMs > 0 ? untilDueMs : BUSY_ELSEWHERE_MS)
        timer = setTimeout(run, sleepMs)
      })
  }

  return {
    start() {
      stopped = false
      offs = options.names.map((name) => onWakeup(name, () => run()))
      run()
    },
    async stop() {
      stopped = true
      clearTimeout(timer)
      for (const off of offs) off()
      await running
    },
  }
}
