import { randomUUID } from 'node:crypto'
import type { CheckEnvironmentVariable, CheckType } from '@svc/core'
import { isUniqueViolation, type RunSessionsTable, type SessionRunsTable } from '@svc/db'
import type { Selectable } from 'kysely'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, conflict, notFound } from '../../http/errors.ts'
import { RUNNABLE_CHECK_TYPES } from '../../runs/run-check.ts'
import { inTransaction } from '../../transactions.ts'
import { raiseWakeup } from '../../wakeups.ts'
import { newResultId } from '../check-results/result-id.ts'
import { type StoredVariable, sealVariables } from '../checks/check-variables.ts'
import { listCheckRowsOfAccount } from '../checks/checks.service.ts'
import { type ResolvedCheck, resolveChecks } from '../checks/resolve-check.ts'
import { RESOURCE_TYPES, type ResourceType } from '../projects/resource-types.ts'
import { locationNamed, MAX_SOURCE_FILE_LENGTH, type RunLocation, suiteIdOf } from './hosted-test-runs.ts'
import { hostedCheckType, testSessionOut } from './session-views.ts'
import * as repo from './test-sessions.repo.ts'

/** The most runs one session may queue (checks × locations). */
export const MAX_SESSION_RUNS = 500

export interface QueuedRun {
  checkId?: string
  logicalId?: string
  name: string
  checkType: string
  location: string
  /** An unsaved definition, validated. */
  definition?: Record<string, unknown>
  /** The project file the definition came from (the hosted CLI's `filePath`). */
  sourceFile?: string
}

export interface NewSession {
  /** The id the client chose (the hosted CLI's `checkRunSuiteId`, which names its live results' topics). */
  id?: string
  kind: 'TEST' | 'CHECK'
  name: string
  checkId?: string
  checkType?: string
  runSource: string
  runLocations: string[]
  /** Variables its runs take over their checks' own, every value sealed (see `sessionVariables`). */
  variables?: StoredVariable[]
}

/** Stores a session and its runs, queued, and wakes this node's worker; answers the session. */
export async function queueSession(
  ctx: ServiceContext,
  accountId: string,
  session: NewSession,
  runs: QueuedRun[],
): Promise<{ session: Selectable<RunSessionsTable>; runs: SessionRunsTable[] }> {
  const now = isoNow(ctx)
  const sessionRow: Selectable<RunSessionsTable> = {
    id: session.id ?? randomUUID(),
    account_id: accountId,
    kind: session.kind,
    name: session.name,
    check_id: session.checkId ?? null,
    check_type: session.checkType ?? null,
    run_source: session.runSource,
    run_locations: JSON.stringify(session.runLocations),
    environment_variables: session.variables?.length ? JSON.stringify(session.variables) : null,
    cancelled: 0,
    created_at: now,
    stopped_at: null,
  }
  const runRows: SessionRunsTable[] = runs.map((run, position) => ({
    // A saved check's run stores its result under this id, so it sorts by time like any result id.
    id: newResultId(ctx.clock.now().getTime()),
    session_id: sessionRow.id,
    account_id: accountId,
    position,
    check_id: run.checkId ?? null,
    logical_id: run.logicalId ?? null,
    name: run.name,
    check_type: run.checkType,
    location: run.location,
    source_file: run.sourceFile ?? null,
    definition: run.definition ? JSON.stringify(run.definition) : null,
    status: 'QUEUED',
    lease_owner: null,
    lease_until_ms: null,
    result_id: null,
    result: null,
    has_failures: null,
    has_errors: null,
    is_degraded: null,
    response_time: null,
    created_at: now,
    started_at: null,
    stopped_at: null,
  }))
  try {
    await inTransaction(ctx, (tx) => repo.insertSession(tx, sessionRow, runRows))
  } catch (error) {
    if (session.id && isUniqueViolation(error))
      throw conflict(`A test session ${session.id} exists already: send a new checkRunSuiteId`)
    throw error
  }
  // After the commit, so that the workers of every node it wakes find the runs.
  await raiseWakeup(ctx, 'session-runs')
  return { session: sessionRow, runs: runRows }
}

export interface CheckTarget {
  checkId?: string[]
  matchTags?: string[][]
  allowDeactivated?: boolean
  /** Only the checks of this group. */
  groupId?: number
}

/**
 * The account's runnable checks a target names: by id, and/or by tags (outer list OR, inner AND, `!tag`
 * not), own tags and their group's. Deactivated checks only when asked (`allowDeactivated`) or named by id.
 */
export async function matchingChecks(
  ctx: ServiceContext,
  accountId: string,
  target: CheckTarget,
): Promise<ResolvedCheck[]> {
  const rows = (await listCheckRowsOfAccount(ctx, accountId)).filter((row) =>
    RUNNABLE_CHECK_TYPES.includes(row.check_type as CheckType),
  )
  const ids = target.checkId && new Set(target.checkId)
  const checks = await resolveChecks(ctx, accountId, rows)
  const tagged = (check: ResolvedCheck) =>
    (target.matchTags ?? []).some((all) =>
      all.every((tag) =>
        tag.startsWith('!')
          ? !check.effective.tags.includes(tag.slice(1))
          : check.effective.tags.includes(tag),
      ),
    )
  return checks
    .filter((check) => {
      if (ids && !ids.has(check.row.id)) return false
      if (target.groupId !== undefined && check.row.group_id !== target.groupId) return false
      if (target.matchTags && target.matchTags.length > 0 && !tagged(check)) return false
      if (!ids && !target.allowDeactivated && !check.definition.activated) return false
      return true
    })
    .sort((a, b) => a.row.created_at.localeCompare(b.row.created_at) || a.row.id.localeCompare(b.row.id))
}

/** Where a saved check runs in a session: the asked location, else each of its own. */
export function runLocationsOf(ctx: ServiceContext, check: ResolvedCheck, asked?: string): string[] {
  if (asked) return [asked]
  return check.runLocations.length > 0 ? check.runLocations : [ctx.locations.defaults[0] ?? 'local']
}

export function assertServedLocation(ctx: ServiceContext, location: string, path: string) {
  if (!ctx.locations.served.includes(location)) {
    throw badRequest(`${path} must be one of the served locations: ${ctx.locations.served.join(', ')}`)
  }
}

function assertRunCount(count: number) {
  if (count > MAX_SESSION_RUNS)
    throw badRequest(`A session runs at most ${MAX_SESSION_RUNS} checks × locations; this one asks ${count}`)
}

/** Runs saved checks that a target names once, in one test session. */
export async function triggerTestSession(
  ctx: ServiceContext,
  accountId: string,
  body: { name: string; runLocation: string; target?: CheckTarget; environmentVariables?: SessionVariable[] },
) {
  const { session, runs } = await queueTriggered(ctx, accountId, {
    ...body,
    variables: body.environmentVariables,
  })
  return testSessionOut(ctx, session, runs)
}

/**
 * `checkly trigger` (the hosted CLI): the checks it names by id or tags run once, in a session named by its
 * suite id; answers what its reporters list (each check, and the result id its live results come under).
 */
export async function triggerForHostedCli(
  ctx: ServiceContext,
  accountId: string,
  body: {
    name?: string
    runLocation?: RunLocation
    checkRunSuiteId?: string
    checkId?: string[]
    targetTags?: string[][]
    environmentVariables?: SessionVariable[]
  },
) {
  const runLocation = body.runLocation
    ? locationNamed(body.runLocation, 'body.runLocation')
    : (ctx.locations.defaults[0] ?? 'local')
  const target = {
    checkId: body.checkId?.length ? body.checkId : undefined,
    matchTags: body.targetTags?.length ? body.targetTags : undefined,
  }
  const { checks, runs, session } = await queueTriggered(ctx, accountId, {
    id: body.checkRunSuiteId?.toLowerCase(),
    name: body.name ?? 'Triggered Session',
    runLocation,
    target,
    variables: body.environmentVariables,
  })
  return {
    testSessionId: session.id,
    checks: checks.map((check) => ({
      id: check.row.id,
      name: check.definition.name,
      checkType: hostedCheckType(check.row.check_type),
      tags: check.effective.tags,
    })),
    sequenceIds: Object.fromEntries(runs.map((run) => [run.check_id as string, run.id])),
  }
}

async function queueTriggered(
  ctx: ServiceContext,
  accountId: string,
  body: {
    id?: string
    name: string
    runLocation: string
    target?: CheckTarget
    variables?: SessionVariable[]
  },
) {
  assertServedLocation(ctx, body.runLocation, 'body.runLocation')
  const checks = await matchingChecks(ctx, accountId, body.target ?? {})
  if (checks.length === 0) throw notFound(NO_MATCHING_CHECKS)
  assertRunCount(checks.length)
  const runs = checks.map((check) => ({
    checkId: check.row.id,
    name: check.definition.name,
    checkType: check.row.check_type,
    location: body.runLocation,
  }))
  const queued = await queueSession(
    ctx,
    accountId,
    {
      id: body.id,
      kind: 'TEST',
      name: body.name,
      runSource: 'TRIGGER_API',
      runLocations: [body.runLocation],
      variables: sessionVariables(ctx, body.variables ?? []),
    },
    runs,
  )
  return { checks, ...queued }
}

export const NO_MATCHING_CHECKS = 'No matching checks were found.'

export type SessionVariable = CheckEnvironmentVariable

/** A session's variables as stored: every value sealed, as they often carry a CI job's secrets. */
export function sessionVariables(ctx: ServiceContext, variables: SessionVariable[]): StoredVariable[] {
  return sealVariables(ctx, variables, []).map((variable) => ({
    ...variable,
    value: null,
    sealedValue: variable.sealedValue ?? ctx.secretBox.encrypt(variable.value ?? ''),
  }))
}

export interface UnsavedRunBody {
  name?: string
  checkRunJobs: Record<string, unknown>[]
  runLocation?: RunLocation
  runLocations?: string[]
}

/**
 * Runs check definitions that are not saved (the body of a check of each type, with `checkType` and an
 * optional `logicalId`) once in each chosen location; their results stay in the session.
 */
export async function runUnsaved(ctx: ServiceContext, accountId: string, body: UnsavedRunBody) {
  const runLocation = body.runLocation && locationNamed(body.runLocation, 'body.runLocation')
  const asked = body.runLocations ?? (runLocation ? [runLocation] : undefined)
  for (const [index, location] of (asked ?? []).entries()) {
    assertServedLocation(
      ctx,
      location,
      body.runLocations ? `body.runLocations[${index}]` : 'body.runLocation',
    )
  }
  const runs = body.checkRunJobs.flatMap((job, index) =>
    runsOfJob(ctx, job, `body.checkRunJobs[${index}]`, asked),
  )
  assertRunCount(runs.length)
  const queued = await queueSession(
    ctx,
    accountId,
    {
      id: suiteIdOf(body.checkRunJobs),
      kind: 'TEST',
      name: body.name ?? 'svc test',
      runSource: 'TEST_NO_RECORD',
      runLocations: [...new Set(runs.map((run) => run.location))],
    },
    runs,
  )
  return {
    ...testSessionOut(ctx, queued.session, queued.runs),
    sequenceIds: Object.fromEntries(
      queued.runs.flatMap((run) => (run.logical_id ? [[run.logical_id, run.id]] : [])),
    ),
  }
}

/** The runs of one unsaved definition at `path`: one per location asked, or per its own locations. */
function runsOfJob(
  ctx: ServiceContext,
  job: Record<string, unknown>,
  path: string,
  asked: string[] | undefined,
): QueuedRun[] {
  const runs: QueuedRun[] = []
  const { groupId: _group, logicalId, filePath, sourceInfo: _source, ...payload } = job
  const refs = () => {
    throw badRequest(`${path}: references to other resources are not resolved in a test session`)
  }
  const { body: definition, checkType } = (RESOURCE_TYPES.check as ResourceType).bodyOf(
    payload,
    refs,
    path,
  ) as {
    body: Record<string, unknown>
    checkType: CheckType
  }
  if (!RUNNABLE_CHECK_TYPES.includes(checkType)) {
    throw badRequest(`${path}.checkType: ${checkType} checks don't run: they are judged from their pings`)
  }
  if (((definition.privateLocations as string[] | undefined) ?? []).length > 0 && !asked) {
    throw badRequest(`${path}.privateLocations: unsaved definitions run in data-center locations only`)
  }
  // Hidden values are sealed at rest, as a saved check's are.
  definition.environmentVariables = sealVariables(
    ctx,
    (definition.environmentVariables as CheckEnvironmentVariable[] | undefined) ?? [],
    [],
  )
  definition.tags ??= []
  const own = (definition.locations as string[] | undefined) ?? []
  const locations = asked ?? (own.length > 0 ? own : [ctx.locations.defaults[0] ?? 'local'])
  for (const location of locations) {
    if (!asked) assertServedLocation(ctx, location, `${path}.locations`)
    runs.push({
      logicalId: typeof logicalId === 'string' ? logicalId : undefined,
      name: String(definition.name),
      checkType,
      location,
      definition,
      sourceFile: typeof filePath === 'string' ? filePath.slice(0, MAX_SOURCE_FILE_LENGTH) : undefined,
    })
  }
  return runs
}
