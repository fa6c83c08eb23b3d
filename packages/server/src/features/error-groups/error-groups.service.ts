import { randomUUID } from 'node:crypto'
import { errorFingerprint } from '@svc/core'
import type { CheckResultsTable, ErrorGroupsTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { inTransaction } from '../../transactions.ts'
import { findResult } from '../check-results/result-lookups.service.ts'
import { findCheck } from '../checks/check-lookups.service.ts'
import * as repo from './error-groups.repo.ts'
import type { ErrorGroup } from './error-groups.schemas.ts'

/** What a failing result without an error message failed with (a `shouldFail` check that passed). */
export const PASSED_BUT_SHOULD_FAIL = 'The check passed but was expected to fail (shouldFail)'

/** The error a failing result is grouped by. */
export function errorOf(row: Pick<CheckResultsTable, 'error_type' | 'error_message'>) {
  const message = row.error_message || row.error_type || PASSED_BUT_SHOULD_FAIL
  return { type: row.error_type, message, ...errorFingerprint(row.error_type, message) }
}

const parseList = (json: string) => JSON.parse(json) as string[]

/**
 * Folds newly stored final results, in the order given, into their checks' error groups, in the
 * transaction that stores them. Most results fail nothing on a check without open groups: one query
 * finds the checks that have some, and only those results (and failures) are folded one by one.
 */
export async function foldResultsIntoErrorGroups(
  ctx: ServiceContext,
  rows: CheckResultsTable[],
): Promise<void> {
  const finals = rows.filter((row) => row.result_type === 'FINAL')
  if (finals.length === 0) return
  const withGroups = new Set(
    await repo.checksWithActiveGroups(ctx, [...new Set(finals.map((r) => r.check_id))]),
  )
  for (const row of finals) {
    if (!row.has_failures && !withGroups.has(row.check_id)) continue
    await foldResultIntoErrorGroups(ctx, row)
    if (row.has_failures) withGroups.add(row.check_id)
  }
}

/**
 * Folds a final result into its check's error groups, in the result's transaction: a failure joins (or
 * opens, or reopens) the group of its fingerprint and is now what fails in its location; a result in a
 * location ends whatever other error failed there. A group is archived (resolved) once no location's
 * latest result fails with it.
 */
async function foldResultIntoErrorGroups(ctx: ServiceContext, row: CheckResultsTable): Promise<void> {
  if (row.result_type !== 'FINAL') return
  const now = ctx.clock.now().toISOString()
  let current: string | undefined
  if (row.has_failures) {
    const error = errorOf(row)
    current = error.hash
    await joinErrorGroup(ctx, row, error, now)
  }
  await endOtherErrorsInLocation(ctx, row, current, now)
}

/** The failure joins the group of its fingerprint, opening it (or reopening it) as needed. */
async function joinErrorGroup(
  ctx: ServiceContext,
  row: CheckResultsTable,
  error: ReturnType<typeof errorOf>,
  now: string,
): Promise<void> {
  const location = row.run_location
  let group = await repo.lockGroup(ctx, row.check_id, error.hash)
  if (!group) {
    const fresh: ErrorGroupsTable = {
      id: randomUUID(),
      account_id: row.account_id,
      check_id: row.check_id,
      error_hash: error.hash,
      error_type: error.type,
      cleaned_message: error.cleaned,
      raw_message: error.message,
      first_seen_at: row.started_at,
      last_seen_at: row.started_at,
      count: 1,
      locations: JSON.stringify([location]),
      failing_locations: JSON.stringify([location]),
      sample_result_id: row.id,
      archived: false,
      resolved_at: null,
      created_at: now,
      updated_at: now,
    }
    if (!(await repo.insertGroup(ctx, fresh))) group = await repo.lockGroup(ctx, row.check_id, error.hash)
  }
  if (!group) return
  const later = row.started_at >= group.last_seen_at
  const locations = new Set(parseList(group.locations)).add(location)
  const failing = new Set(parseList(group.failing_locations)).add(location)
  await repo.updateGroup(ctx, group.id, {
    count: group.count + 1,
    first_seen_at: [row.started_at, group.first_seen_at].sort()[0] as string,
    last_seen_at: later ? row.started_at : group.last_seen_at,
    raw_message: later ? error.message : group.raw_message,
    sample_result_id: later ? row.id : group.sample_result_id,
    locations: JSON.stringify([...locations].sort()),
    failing_locations: JSON.stringify([...failing].sort()),
    archived: false,
    resolved_at: null,
    updated_at: now,
  })
}

/** A result in a location ends every other error failing there; a group failing nowhere is archived. */
async function endOtherErrorsInLocation(
  ctx: ServiceContext,
  row: CheckResultsTable,
  current: string | undefined,
  now: string,
): Promise<void> {
  const location = row.run_location
  for (const group of await repo.activeGroups(ctx, row.check_id)) {
    if (group.error_hash === current) continue
    const failing = parseList(group.failing_locations)
    if (!failing.includes(location)) continue
    const rest = failing.filter((l) => l !== location)
    await repo.updateGroup(ctx, group.id, {
      failing_locations: JSON.stringify(rest),
      ...(rest.length === 0 ? { archived: true, resolved_at: row.started_at } : {}),
      updated_at: now,
    })
  }
}

export async function listErrorGroups(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  filter: { archived?: boolean },
  page: Page,
) {
  if (!(await findCheck(ctx, accountId, checkId))) throw notFound(`Check ${checkId} not found`)
  const { rows, total } = await repo.listGroups(ctx, checkId, filter, page)
  return { items: await Promise.all(rows.map((row) => toErrorGroup(ctx, row))), total }
}

/** The error groups of every check of the account, most recently seen first. */
export async function listAccountErrorGroups(
  ctx: ServiceContext,
  accountId: string,
  filter: { archived?: boolean },
  page: Page,
) {
  const { rows, total } = await repo.listGroupsOfAccount(ctx, accountId, filter, page)
  return { items: await Promise.all(rows.map((row) => toErrorGroup(ctx, row))), total }
}

/**
 * Archives a group by hand until its error is seen again (`archivedUntilNextEvent: true`: a new failure
 * reopens it, as one reopens a resolved group), or reopens it (`false`). svc keeps no group archived
 * through new failures, so `archiveForEver: true` is a 400.
 */
export async function patchErrorGroup(
  ctx: ServiceContext,
  accountId: string,
  id: string,
  patch: { archivedUntilNextEvent?: boolean; archiveForEver?: boolean },
): Promise<ErrorGroup> {
  if (patch.archiveForEver) {
    throw invalid(
      'body.archiveForEver',
      'is not served: svc reopens an archived error group when its error is seen again; use archivedUntilNextEvent',
    )
  }
  await inTransaction(ctx, async (tx) => {
    const row = await repo.lockGroupById(tx, accountId, id, 'change')
    if (!row) throw notFound(`Error group ${id} not found`)
    if (patch.archivedUntilNextEvent === undefined) return
    const now = tx.clock.now().toISOString()
    await repo.updateGroup(
      tx,
      id,
      patch.archivedUntilNextEvent
        ? { archived: true, resolved_at: now, failing_locations: '[]', updated_at: now }
        : { archived: false, resolved_at: null, updated_at: now },
    )
  })
  return getErrorGroup(ctx, accountId, id)
}

export async function getErrorGroup(ctx: ServiceContext, accountId: string, id: string): Promise<ErrorGroup> {
  const row = await repo.findGroup(ctx, accountId, id)
  if (!row) throw notFound(`Error group ${id} not found`)
  return toErrorGroup(ctx, row)
}

async function toErrorGroup(ctx: ServiceContext, row: ErrorGroupsTable): Promise<ErrorGroup> {
  const sample = row.sample_result_id ? await findResult(ctx, row.check_id, row.sample_result_id) : undefined
  const archived = Boolean(row.archived)
  return {
    id: row.id,
    checkId: row.check_id,
    errorHash: row.error_hash,
    errorType: row.error_type,
    rawErrorMessage: row.raw_message,
    cleanedErrorMessage: row.cleaned_message,
    firstSeen: row.first_seen_at,
    lastSeen: row.last_seen_at,
    count: row.count,
    locations: parseList(row.locations),
    failingLocations: parseList(row.failing_locations),
    sampleResultId: row.sample_result_id,
    sampleResult: sample
      ? {
          id: sample.id,
          runLocation: sample.run_location,
          startedAt: sample.started_at,
          responseTime: Number(sample.response_time),
          statusCode: sample.status_code,
          error: sample.error_type ? { type: sample.error_type, message: sample.error_message ?? '' } : null,
        }
      : null,
    archived,
    archivedUntilNextEvent: archived,
    resolvedAt: row.resolved_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
