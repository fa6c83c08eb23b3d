import { extname } from 'node:path'
import type { Readable } from 'node:stream'
import type { ServiceContext } from '../../context.ts'
import { notFound } from '../../http/errors.ts'
import { loadSession } from './session-progress.service.ts'
import { testSessionResultOut } from './session-views.ts'
import * as repo from './test-sessions.repo.ts'

/** One result of a test session, with its whole detail for an unsaved definition's run. */
export async function getTestSessionResult(
  ctx: ServiceContext,
  accountId: string,
  sessionId: string,
  resultId: string,
) {
  await loadSession(ctx, accountId, sessionId, 'TEST')
  const run = await repo.findRun(ctx, sessionId, resultId)
  if (!run) throw notFound(`Result ${resultId} not found`)
  const stored = run.result ? (JSON.parse(run.result) as Record<string, unknown>) : {}
  return {
    ...stored,
    ...testSessionResultOut(ctx, run),
    id: run.id,
    isCancelled: run.status === 'CANCELLED',
    overMaxResponseTime: Boolean(stored.overMaxResponseTime),
    attempts: run.status === 'DONE' ? 1 : 0,
    sequenceId: null,
    traceId: null,
    created_at: run.created_at,
    updated_at: run.stopped_at,
  }
}

/** The screenshots, traces and videos of an unsaved definition's run, with their links. */
export async function assetsOfResult(
  ctx: ServiceContext,
  accountId: string,
  sessionId: string,
  resultId: string,
  types?: string[],
) {
  const result = (await getTestSessionResult(ctx, accountId, sessionId, resultId)) as Record<string, unknown>
  const assets: { type: string; name: string; url: string; size?: number }[] = []
  for (const value of Object.values(result)) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue
    const detail = value as Record<string, unknown>
    for (const [key, type] of [
      ['screenshots', 'screenshot'],
      ['traces', 'trace'],
      ['videos', 'video'],
    ] as const) {
      for (const file of (detail[key] as { path: string; url: string; size?: number }[] | undefined) ?? []) {
        if (!types || types.includes(type))
          assets.push({ type, name: file.path, url: file.url, size: file.size })
      }
    }
  }
  return { assets }
}

/** The bytes of an unsaved definition's artifact; `path` may not leave its run's artifacts. */
export async function openSessionArtifact(
  ctx: ServiceContext,
  accountId: string,
  sessionId: string,
  resultId: string,
  path: string,
): Promise<{ stream: Readable; contentType: string }> {
  await loadSession(ctx, accountId, sessionId, 'TEST')
  const run = await repo.findRun(ctx, sessionId, resultId)
  if (!run || run.check_id) throw notFound(`Artifact ${path} not found`)
  const stream = await ctx.scripts.artifacts.open(run.id, run.id, path)
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
