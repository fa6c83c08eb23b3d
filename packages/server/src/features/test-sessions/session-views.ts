import type { SessionRunsTable, RunSessionsTable as SessionsTable } from '@svc/db'
import type { Selectable } from 'kysely'
import type { ServiceContext } from '../../context.ts'

type RunSessionsTable = Selectable<SessionsTable>
type TestStatus = 'RUNNING' | 'FAILED' | 'PASSED' | 'CANCELLED'

const OPEN = ['QUEUED', 'RUNNING']
const isOpen = (run: SessionRunsTable) => OPEN.includes(run.status)
const failed = (run: SessionRunsTable) => Boolean(run.has_failures) || Boolean(run.has_errors)

/** The hosted product's name of a check type where it differs. */
export const hostedCheckType = (checkType: string) => (checkType === 'AUTOMATION' ? 'PLAYWRIGHT' : checkType)

function elapsedMs(session: RunSessionsTable, ctx: ServiceContext): number {
  const end = session.stopped_at ? Date.parse(session.stopped_at) : ctx.clock.now().getTime()
  return Math.max(0, end - Date.parse(session.created_at))
}

/** RUNNING while a run waits or runs; then CANCELLED, FAILED (any run failed) or PASSED. */
export function testSessionStatus(session: RunSessionsTable, runs: SessionRunsTable[]): TestStatus {
  if (runs.some(isOpen)) return 'RUNNING'
  if (session.cancelled) return 'CANCELLED'
  return runs.some(failed) ? 'FAILED' : 'PASSED'
}

function runStatus(run: SessionRunsTable): TestStatus {
  if (isOpen(run)) return 'RUNNING'
  if (run.status === 'CANCELLED') return 'CANCELLED'
  return failed(run) ? 'FAILED' : 'PASSED'
}

export function testSessionResultOut(ctx: ServiceContext, run: SessionRunsTable) {
  return {
    testSessionResultId: run.id,
    testSessionResultLink: `${ctx.publicUrl}/v1/test-sessions/${run.session_id}/results/${run.id}`,
    checkId: run.check_id,
    checkType: hostedCheckType(run.check_type),
    name: run.name,
    logicalId: run.logical_id,
    runLocation: run.location,
    errorGroupIds: [],
    resultType: isOpen(run) ? 'PENDING' : 'FINAL',
    status: runStatus(run),
    hasErrors: Boolean(run.has_errors),
    hasFailures: Boolean(run.has_failures),
    isDegraded: Boolean(run.is_degraded),
    aborted: run.status === 'CANCELLED',
    responseTime: run.response_time === null ? null : Number(run.response_time),
    startedAt: run.started_at,
    stoppedAt: run.stopped_at,
    /** A saved check's run is one of its results too. */
    checkResultLink:
      run.check_id && run.result_id && run.status === 'DONE'
        ? `${ctx.publicUrl}/v1/check-results/${run.check_id}/${run.result_id}`
        : null,
  }
}

export function testSessionOut(ctx: ServiceContext, session: RunSessionsTable, runs: SessionRunsTable[]) {
  return {
    testSessionId: session.id,
    testSessionLink: `${ctx.publicUrl}/v1/test-sessions/${session.id}`,
    name: session.name,
    status: testSessionStatus(session, runs),
    errorGroupIds: [],
    startedAt: session.created_at,
    stoppedAt: session.stopped_at,
    timeElapsed: elapsedMs(session, ctx),
    results: runs.map((run) => testSessionResultOut(ctx, run)),
  }
}

/** The hosted `provider` of a session: what started it. */
const providerOf = (session: RunSessionsTable) => (session.run_source === 'TRIGGER_API' ? 'TRIGGER' : 'API')

/**
 * A session as the hosted list shows it: its results' ids by status, where it ran, and nulls for the
 * commit and user svc doesn't record. `testSessionId`, `testSessionLink` and `timeElapsed` stay for svc's
 * own clients.
 */
export function testSessionListEntry(
  ctx: ServiceContext,
  session: RunSessionsTable,
  runs: SessionRunsTable[],
) {
  const idsWith = (status: TestStatus) => runs.filter((run) => runStatus(run) === status).map((run) => run.id)
  const region = (JSON.parse(session.run_locations) as string[])[0] ?? ''
  return {
    id: session.id,
    accountId: session.account_id,
    projectId: null,
    name: session.name,
    provider: providerOf(session),
    errorGroupIds: [],
    running: idsWith('RUNNING'),
    passed: idsWith('PASSED'),
    failed: idsWith('FAILED'),
    cancelled: idsWith('CANCELLED'),
    status: testSessionStatus(session, runs),
    region,
    privateLocationId: region.startsWith('private:') ? region.slice('private:'.length) : null,
    invoker: null,
    repoUrl: null,
    commitId: null,
    commitOwner: null,
    commitMessage: null,
    branchName: null,
    environment: null,
    startedAt: session.created_at,
    stoppedAt: session.stopped_at,
    created_at: session.created_at,
    updated_at: session.stopped_at,
    testSessionId: session.id,
    testSessionLink: `${ctx.publicUrl}/v1/test-sessions/${session.id}`,
    timeElapsed: elapsedMs(session, ctx),
  }
}

/** A check session's status as the hosted product names them. */
export function checkSessionStatus(session: RunSessionsTable, runs: SessionRunsTable[]) {
  const done = runs.filter((run) => !isOpen(run))
  const anyFailed = done.some(failed)
  const anyDegraded = done.some((run) => Boolean(run.is_degraded))
  if (runs.some(isOpen)) {
    if (done.length === 0) return 'STARTED'
    return anyFailed ? 'PROGRESS_FAILED' : anyDegraded ? 'PROGRESS_DEGRADED' : 'PROGRESS'
  }
  if (session.cancelled) return 'CANCELLED'
  return anyFailed ? 'FAILED' : anyDegraded ? 'DEGRADED' : 'PASSED'
}

export function checkSessionOut(ctx: ServiceContext, session: RunSessionsTable, runs: SessionRunsTable[]) {
  const link = `${ctx.publicUrl}/v1/check-sessions/${session.id}`
  return {
    checkSessionId: session.id,
    checkSessionLink: link,
    checkId: session.check_id ?? '',
    checkType: hostedCheckType(session.check_type ?? ''),
    name: session.name,
    status: checkSessionStatus(session, runs),
    startedAt: session.created_at,
    stoppedAt: session.stopped_at,
    timeElapsed: elapsedMs(session, ctx),
    runLocations: JSON.parse(session.run_locations) as string[],
    runSource: session.run_source,
    results: runs
      .filter((run) => !isOpen(run))
      .map((run) => ({
        checkResultId: run.result_id ?? run.id,
        checkResultLink: `${ctx.publicUrl}/v1/check-results/${run.check_id}/${run.result_id ?? run.id}`,
        checkId: run.check_id ?? '',
        checkType: hostedCheckType(run.check_type),
        name: run.name,
        runLocation: run.location,
        resultType: 'FINAL',
        hasErrors: Boolean(run.has_errors),
        hasFailures: Boolean(run.has_failures),
        isDegraded: Boolean(run.is_degraded),
        aborted: run.status === 'CANCELLED',
        isCancelled: run.status === 'CANCELLED',
        responseTime: run.response_time === null ? null : Number(run.response_time),
        startedAt: run.started_at,
        stoppedAt: run.stopped_at,
      })),
  }
}
