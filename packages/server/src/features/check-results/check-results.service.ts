import { extname } from 'node:path'
import type { Readable } from 'node:stream'
import type { CheckResultsTable } from '@svc/db'
import type { ScriptCheckResult } from '@svc/runner'
import type { ServiceContext } from '../../context.ts'
import { badRequest, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import { SCRIPT_DETAIL_KEYS } from '../../runs/script-checks.ts'
import { findCheck, lockReferencedChecksById } from '../checks/check-lookups.service.ts'
import * as repo from './check-results.repo.ts'
import type { CheckResult, ListResultsQuery, ListResultsV2Query } from './check-results.schemas.ts'
import { foldedResultsBetween } from './final-results.repo.ts'
import { currentStatusesSince, statusesBrokenSince } from './result-statuses.repo.ts'

export async function listResults(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  query: ListResultsQuery,
  page: Page,
) {
  const filter = filterOf(query)
  const check = await ownCheckOrThrow(ctx, accountId, checkId)
  if (!ofCheckType(check.check_type, query.checkType)) return { items: [], total: 0 }
  const { rows, total } = await repo.listResults(ctx, checkId, filter, page)
  return { items: rows.map((row) => toResult(ctx, row)), total }
}

/**
 * A page of `GET /v2/check-results/{checkId}`: newest first, `nextId` naming the page after it. The
 * cursor holds the newest start time of the first page, so results stored since don't shift the pages.
 */
export async function listResultsByCursor(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  query: ListResultsV2Query,
) {
  const filter = filterOf(query)
  const check = await ownCheckOrThrow(ctx, accountId, checkId)
  const limit = query.limit ?? 10
  if (!ofCheckType(check.check_type, query.checkType)) return { length: 0, entries: [], nextId: null }
  const cursor = query.nextId === undefined ? undefined : parseCursor(query.nextId)
  const bounded =
    cursor && (!filter.toIso || cursor.to < filter.toIso) ? { ...filter, toIso: cursor.to } : filter
  const offset = cursor?.offset ?? 0
  const { rows, total } = await repo.listResults(ctx, checkId, bounded, { limit, offset })
  const to = cursor?.to ?? rows[0]?.started_at
  const more = offset + rows.length < total && to !== undefined
  const entries = rows.map((row) => withFields(toResult(ctx, row), query.fields))
  return {
    length: entries.length,
    entries,
    nextId: more ? cursorOf({ offset: offset + rows.length, to: to as string }) : null,
  }
}

interface Cursor {
  offset: number
  to: string
}

const cursorOf = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url')

function parseCursor(text: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor
    if (Number.isSafeInteger(cursor.offset) && cursor.offset >= 0 && !Number.isNaN(Date.parse(cursor.to))) {
      return { offset: cursor.offset, to: new Date(cursor.to).toISOString() }
    }
  } catch {}
  const message = 'is not a nextId this list answered'
  throw badRequest(`querystring.nextId ${message}`, { errors: [{ path: 'querystring.nextId', message }] })
}

/** Only `fields` of the result (all of them without). */
function withFields(result: CheckResult, fields: string[] | undefined): CheckResult {
  if (!fields) return result
  const named = { ...result, createdAt: result.created_at } as Record<string, unknown>
  return Object.fromEntries(fields.filter((f) => f in named).map((f) => [f, named[f]])) as CheckResult
}

/** Whether results of a check of `checkType` are of the type the query names (PLAYWRIGHT: AUTOMATION). */
function ofCheckType(checkType: string, named: string | undefined): boolean {
  return named === undefined || checkType === (named === 'PLAYWRIGHT' ? 'AUTOMATION' : named)
}

function filterOf(query: Omit<ListResultsQuery, 'limit' | 'page'>) {
  // Both bounds are inclusive: from = to is a (one-second) window, from > to an inverted one.
  if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
    const message = 'must not be after `to` (the window is inverted)'
    throw badRequest(`querystring.from ${message}`, { errors: [{ path: 'querystring.from', message }] })
  }
  return {
    fromIso: query.from === undefined ? undefined : new Date(query.from * 1000).toISOString(),
    toIso: query.to === undefined ? undefined : new Date(query.to * 1000).toISOString(),
    location: query.location,
    hasFailures: query.hasFailures,
    resultType: query.resultType === 'ALL' ? undefined : query.resultType,
  }
}

export async function getResult(ctx: ServiceContext, accountId: string, checkId: string, resultId: string) {
  await ownCheckOrThrow(ctx, accountId, checkId)
  const row = await repo.findResult(ctx, checkId, resultId)
  if (!row) throw notFound(`Result ${resultId} not found`)
  return toResult(ctx, row)
}

/**
 * The bytes of one of a result's artifacts (screenshot, trace, video), for a member of the check's account,
 * from the artifact store. `path` is relative to the result's artifacts and may not leave them.
 */
export async function openArtifact(
  ctx: ServiceContext,
  accountId: string,
  checkId: string,
  resultId: string,
  path: string,
): Promise<{ stream: Readable; contentType: string }> {
  await ownCheckOrThrow(ctx, accountId, checkId)
  const stream = await ctx.scripts.artifacts.open(checkId, resultId, path)
  if (!stream) throw notFound(`Artifact ${path} not found`)
  return { stream, contentType: CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream' }
}

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.zip': 'application/zip',
  '.webm': 'video/webm',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
}

/**
 * Links to a script result's artifacts: `traceUrl`, a `url` on each screenshot, trace and video, and
 * `playwrightTestVideos` (the videos' URLs, as the hosted product names them).
 */
function withArtifactLinks(ctx: ServiceContext, row: CheckResultsTable, detail: Record<string, unknown>) {
  const key = SCRIPT_DETAIL_KEYS[row.check_type as keyof typeof SCRIPT_DETAIL_KEYS]
  const result = key ? (detail[key] as ScriptCheckResult | undefined) : undefined
  if (!key || !result) return detail
  const base = `${ctx.publicUrl}/v1/check-results/${row.check_id}/${row.id}/artifacts/`
  const url = (path: string) => base + path.split('/').map(encodeURIComponent).join('/')
  return {
    ...detail,
    [key]: {
      ...result,
      traceUrl: result.traces?.[0] ? url(result.traces[0].path) : null,
      screenshots: (result.screenshots ?? []).map((shot) => ({ ...shot, url: url(shot.path) })),
      traces: (result.traces ?? []).map((trace) => ({ ...trace, url: url(trace.path) })),
      videos: (result.videos ?? []).map((video) => ({ ...video, url: url(video.path) })),
      playwrightTestVideos: (result.videos ?? []).map((video) => url(video.path)),
    },
  }
}

/**
 * An API result that got no response leaves `response` out and says why in `requestError`, as the
 * hosted schema has it (its `response` is always an object).
 */
function withRequestError(detail: Record<string, unknown>, error: string | null): Record<string, unknown> {
  const api = detail.apiCheckResult as Record<string, unknown> | null | undefined
  if (!api || api.response !== null) return detail
  const { response: _none, ...rest } = api
  return { ...detail, apiCheckResult: { ...rest, requestError: api.requestError ?? error } }
}

async function ownCheckOrThrow(ctx: ServiceContext, accountId: string, checkId: string) {
  const check = await findCheck(ctx, accountId, checkId)
  if (!check) throw notFound(`Check ${checkId} not found`)
  return check
}

function toResult(ctx: ServiceContext, row: CheckResultsTable): CheckResult {
  return {
    id: row.id,
    checkId: row.check_id,
    checkType: row.check_type,
    runLocation: row.run_location,
    startedAt: row.started_at,
    stoppedAt: row.stopped_at,
    responseTime: Number(row.response_time),
    hasFailures: Boolean(row.has_failures),
    hasErrors: Boolean(row.has_errors),
    isDegraded: Boolean(row.is_degraded),
    overMaxResponseTime: Boolean(row.over_max_response_time),
    isCancelled: Boolean(row.is_cancelled),
    attempts: row.attempts,
    resultType: row.result_type as 'FINAL' | 'ATTEMPT',
    error: row.error_type ? { type: row.error_type, message: row.error_message ?? '' } : null,
    ...withArtifactLinks(
      ctx,
      row,
      withRequestError(JSON.parse(row.detail) as Record<string, unknown>, row.error_message),
    ),
    traceId: null,
    created_at: row.created_at,
  }
}

/** The latest result of each check and since when its status holds: the dashboard's overview. */
export const statusReads = {
  latestResults: repo.latestResults,
  currentStatusesSince,
  statusesBrokenSince,
}

/** For analytics: a check's folded results in a time range, the minute buckets it answers from them. */
export const analyticsReads = {
  foldedResultsBetween,
}

/**
 * For the run pipeline's store (runs/store.ts), inside its transaction: locks the checks `checkIds`
 * name, in id order, and answers those that still exist; then inserts the results, answering the ids
 * of new ones (a job's result stored twice is inserted once). And what the pipeline reads of stored results.
 */
export const resultWrites = {
  lockChecksOfResults: (tx: ServiceContext, checkIds: string[]) => lockReferencedChecksById(tx, checkIds),
  insertResults: repo.insertResults,
  isResultStored: repo.isResultStored,
  /** The results stored for these job ids (an agent's outcome posted again) and under these ids. */
  findResultsByJobIds: repo.findResultsByJobIds,
  findResultsByIds: repo.findResultsByIds,
}

/** For the retention sweep: deletes an account's results that started before `beforeIso`; answers how many went. */
export function deleteResultsBefore(
  ctx: ServiceContext,
  accountId: string,
  beforeIso: string,
): Promise<number> {
  return repo.deleteResultsBefore(ctx, accountId, beforeIso)
}
