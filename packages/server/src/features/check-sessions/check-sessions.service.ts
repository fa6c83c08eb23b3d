import type { ServiceContext } from '../../context.ts'
import { badRequest, notFound } from '../../http/errors.ts'
import type { ResolvedCheck } from '../checks/resolve-check.ts'
import { privateLocationIdOf } from '../private-locations/location-keys.ts'
import { awaitSession, cancelSession, loadSession } from '../test-sessions/session-progress.service.ts'
import { checkSessionOut } from '../test-sessions/session-views.ts'
import {
  type CheckTarget,
  MAX_SESSION_RUNS,
  matchingChecks,
  queueSession,
  runLocationsOf,
  type SessionVariable,
  sessionVariables,
} from '../test-sessions/test-sessions.service.ts'

/**
 * Runs each check a target names once in each of its locations, deactivated ones included (a trigger
 * runs a check whatever its schedule): one check session per check. 404 when none matches.
 */
export async function triggerCheckSessions(
  ctx: ServiceContext,
  accountId: string,
  target: Omit<CheckTarget, 'allowDeactivated'>,
  runSource = 'TRIGGER_API',
  variables: SessionVariable[] = [],
) {
  const checks = await matchingChecks(ctx, accountId, { ...target, allowDeactivated: true })
  if (checks.length === 0) throw notFound('No matching checks were found.')
  return { sessions: await startCheckSessions(ctx, accountId, checks, runSource, variables) }
}

/** One check session per check, each queued for every location the check runs in. */
export async function startCheckSessions(
  ctx: ServiceContext,
  accountId: string,
  checks: ResolvedCheck[],
  runSource: string,
  variables: SessionVariable[] = [],
) {
  if (variables.length > 0) assertNoAgentRuns(ctx, checks)
  const runCount = checks.reduce((sum, check) => sum + runLocationsOf(ctx, check).length, 0)
  if (runCount > MAX_SESSION_RUNS) {
    throw badRequest(
      `A trigger runs at most ${MAX_SESSION_RUNS} checks × locations; this one asks ${runCount}`,
    )
  }
  const sessions = []
  for (const check of checks) {
    const locations = runLocationsOf(ctx, check)
    const queued = await queueSession(
      ctx,
      accountId,
      {
        kind: 'CHECK',
        name: check.definition.name,
        checkId: check.row.id,
        checkType: check.row.check_type,
        runSource,
        runLocations: locations,
        variables: sessionVariables(ctx, variables),
      },
      locations.map((location) => ({
        checkId: check.row.id,
        name: check.definition.name,
        checkType: check.row.check_type,
        location,
      })),
    )
    sessions.push(checkSessionOut(ctx, queued.session, queued.runs))
  }
  return sessions
}

/** Runs handed to a private location's agent take the check's own variables only: say so up front. */
function assertNoAgentRuns(ctx: ServiceContext, checks: ResolvedCheck[]) {
  const check = checks.find((c) => runLocationsOf(ctx, c).some((location) => privateLocationIdOf(location)))
  if (check) {
    throw badRequest(
      `body.environmentVariables: check ${check.definition.name} runs in a private location, whose agents ` +
        'run checks with their own variables; trigger it without them',
    )
  }
}

export async function getCheckSession(ctx: ServiceContext, accountId: string, id: string) {
  const { session, runs } = await loadSession(ctx, accountId, id, 'CHECK')
  return checkSessionOut(ctx, session, runs)
}

export async function awaitCheckSession(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  maxWaitMs: number,
) {
  const { session, runs } = await awaitSession(ctx, accountId, id, 'CHECK', maxWaitMs)
  return checkSessionOut(ctx, session, runs)
}

export function cancelCheckSession(ctx: ServiceContext, accountId: string, id: string) {
  return cancelSession(ctx, accountId, id, 'CHECK')
}
