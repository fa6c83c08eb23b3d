import type { SessionRunsTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { HttpError, notFound } from '../../http/errors.ts'
import { sessionEvents } from './session-runner.ts'
import { testSessionListEntry, testSessionOut } from './session-views.ts'
import * as repo from './test-sessions.repo.ts'

/** A queued session from then on: reading it, waiting for it to end, following its runs, cancelling it. */

/** A session of `kind` with its runs; ended sessions get their stop time once. */
export async function loadSession(ctx: ServiceContext, accountId: string, id: string, kind: string) {
  const session = await repo.findSession(ctx, accountId, id)
  if (!session || session.kind !== kind) {
    throw notFound(`${kind === 'TEST' ? 'Test' : 'Check'} session ${id} not found`)
  }
  const runs = await repo.runsOfSessions(ctx, [id])
  if (!session.stopped_at && runs.every((run) => run.status === 'DONE' || run.status === 'CANCELLED')) {
    const ended =
      runs
        .map((run) => run.stopped_at ?? '')
        .sort()
        .at(-1) || isoNow(ctx)
    await repo.markSessionStopped(ctx, id, ended)
    session.stopped_at = ended
  }
  return { session, runs }
}

const isEnded = (runs: SessionRunsTable[]) =>
  runs.every((run) => run.status === 'DONE' || run.status === 'CANCELLED')

/** The session as soon as it ended, waiting up to `maxWaitMs`; 408 while it still runs. */
export async function awaitSession(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  kind: string,
  maxWaitMs: number,
) {
  const deadline = Date.now() + maxWaitMs
  for (;;) {
    const loaded = await loadSession(ctx, accountId, id, kind)
    if (isEnded(loaded.runs)) return loaded
    const left = deadline - Date.now()
    if (left <= 0) {
      throw new HttpError(
        408,
        'The session is still in progress, but maximum per-request wait time was exceeded. Please retry.',
        { headers: { 'retry-after': '1' } },
      )
    }
    await changeOf(id, Math.min(left, 1000))
  }
}

/**
 * The test session `id` once it exists, looking every so often for up to `maxWaitMs`; undefined when it
 * didn't appear in time or `isOpen` turned false (a live-results subscriber waits so for the session it
 * subscribed to before its client started it).
 */
export async function waitForSession(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  maxWaitMs: number,
  isOpen: () => boolean,
) {
  const deadline = Date.now() + maxWaitMs
  for (let delayMs = 50; isOpen() && Date.now() < deadline; delayMs = Math.min(delayMs * 2, 1000)) {
    const session = await repo.findSession(ctx, accountId, id)
    if (session?.kind === 'TEST') return loadSession(ctx, accountId, id, 'TEST')
    await new Promise((wake) => setTimeout(wake, delayMs))
  }
  return undefined
}

/** Calls `onResult` with each run as it ends (those ended already first), until all ended or closed. */
export async function followSession(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  onResult: (run: SessionRunsTable) => void,
  isOpen: () => boolean,
) {
  const told = new Set<string>()
  for (;;) {
    const loaded = await loadSession(ctx, accountId, id, 'TEST')
    for (const run of loaded.runs) {
      if ((run.status === 'DONE' || run.status === 'CANCELLED') && !told.has(run.id)) {
        told.add(run.id)
        onResult(run)
      }
    }
    if (isEnded(loaded.runs) || !isOpen()) return loaded
    await changeOf(id, 1000)
  }
}

/** Runs end on any node: this node hears of its own at once, and of others' on the next look. */
function changeOf(sessionId: string, maxMs: number): Promise<void> {
  return new Promise((done) => {
    const finish = () => {
      clearTimeout(timer)
      sessionEvents.off(sessionId, finish)
      done()
    }
    const timer = setTimeout(finish, maxMs)
    sessionEvents.on(sessionId, finish)
  })
}

/** Runs that have not ended end cancelled (one in flight finishes, but its result is not kept). */
export async function cancelSession(ctx: ServiceContext, accountId: string, id: string, kind: string) {
  await loadSession(ctx, accountId, id, kind)
  await repo.cancelRuns(ctx, id, isoNow(ctx))
  sessionEvents.emit(id)
}

export async function getTestSession(ctx: ServiceContext, accountId: string, id: string) {
  const { session, runs } = await loadSession(ctx, accountId, id, 'TEST')
  return testSessionOut(ctx, session, runs)
}

export async function listTestSessions(
  ctx: ServiceContext,
  accountId: string,
  query: { from?: number; to?: number; limit?: number | null; statuses?: string[]; providers?: string[] },
) {
  const sessions = await repo.listSessions(ctx, accountId, {
    kind: 'TEST',
    fromIso: query.from === undefined ? undefined : new Date(query.from * 1000).toISOString(),
    toIso: query.to === undefined ? undefined : new Date(query.to * 1000).toISOString(),
    limit: query.limit ?? 20,
  })
  const runs = await repo.runsOfSessions(
    ctx,
    sessions.map((session) => session.id),
  )
  const entries = sessions
    .map((session) =>
      testSessionListEntry(
        ctx,
        session,
        runs.filter((run) => run.session_id === session.id),
      ),
    )
    .filter((entry) => !query.statuses || query.statuses.includes(entry.status))
    .filter((entry) => !query.providers?.length || query.providers.includes(entry.provider))
  return { length: entries.length, entries, nextId: null }
}
