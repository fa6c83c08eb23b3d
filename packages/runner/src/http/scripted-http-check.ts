import type { ApiScripts } from '@svc/core'
import type { PlaywrightPool } from '../playwright/pool.ts'
import { type RunError, type RunnerContext, timedVerdict } from '../types.ts'
import { ApiScriptRun, type ScriptRequest } from './api-scripts.ts'
import { type Hop, STORED_BODY_BYTES } from './fetch-once.ts'
import type { HttpJob } from './http-job.ts'
import { methodOf } from './http-request.ts'
import { emptyPhases, type HttpRunResult, runHttpCheck } from './run-http-check.ts'

export interface ScriptedRunContext extends RunnerContext {
  /** Where the scripts' process starts (its sandbox); without one a run with scripts fails. */
  playwright?: PlaywrightPool
  signal?: AbortSignal
}

/** Whether `job` runs scripts around its request: only then does a run start a process for them. */
export function hasApiScripts(scripts: ApiScripts | null | undefined): scripts is ApiScripts {
  return Boolean(scripts && (scripts.setup.length > 0 || scripts.tearDown.length > 0))
}

/**
 * Runs an API check with its setup scripts before the request (the request they leave is the one
 * sent) and its teardown scripts after the response, before the assertions read it. A script that
 * throws or runs out of time fails the run with a SCRIPT error; what the scripts logged is the
 * result's `jobLog`.
 */
export async function runScriptedHttpCheck(
  job: HttpJob,
  scripts: ApiScripts,
  ctx: ScriptedRunContext,
): Promise<HttpRunResult> {
  const startedAt = ctx.now()
  const run = new ApiScriptRun(scripts, { pool: ctx.playwright, signal: ctx.signal })
  try {
    let prepared = job
    if (scripts.setup.length > 0) {
      const answer = await run.setup(scriptRequestOf(job))
      if ('error' in answer) {
        const failed = setupFailed(job, answer.error, startedAt, ctx)
        return { ...failed, checkResult: { ...failed.checkResult, jobLog: run.jobLog } }
      }
      prepared = withRequest(job, answer.value)
      // Nothing more to run in it: its memory is not held through the request.
      if (scripts.tearDown.length === 0) run.close()
    }
    const tearDown = scripts.tearDown.length > 0 ? (hop: Hop) => tearDownOf(run, hop) : undefined
    const result = await runHttpCheck(prepared, ctx, tearDown)
    return { ...result, checkResult: { ...result.checkResult, jobLog: run.jobLog } }
  } finally {
    run.close()
  }
}

/** The request as the hosted product hands it to setup scripts: headers and parameters as objects. */
function scriptRequestOf(job: HttpJob): ScriptRequest {
  const entries = (list?: { key: string; value: string }[]) =>
    Object.fromEntries((list ?? []).map(({ key, value }) => [key, value]))
  return {
    method: methodOf(job),
    url: job.request.url,
    headers: entries(job.request.headers),
    queryParameters: entries(job.request.queryParameters),
    body: job.request.body ?? '',
  }
}

/** The job with the request a setup left; a body set where there was none is sent as it is (RAW). */
function withRequest(job: HttpJob, request: ScriptRequest): HttpJob {
  const pairs = (object: Record<string, string>) =>
    Object.entries(object).map(([key, value]) => ({ key, value }))
  const bodyType = job.request.bodyType ?? 'NONE'
  const bodySet = bodyType === 'NONE' && request.body !== '' && request.body !== (job.request.body ?? '')
  return {
    ...job,
    request: {
      ...job.request,
      method: request.method,
      url: request.url,
      headers: pairs(request.headers),
      queryParameters: pairs(request.queryParameters),
      body: request.body,
      bodyType: bodySet ? 'RAW' : bodyType,
    },
  }
}

/** Hands the response to the teardown scripts and keeps what they leave of it. */
async function tearDownOf(run: ApiScriptRun, hop: Hop): Promise<RunError | null> {
  const { status, statusText, headers } = hop.response
  const answer = await run.tearDown({ statusCode: status, statusText, headers, body: hop.text })
  if ('error' in answer) return answer.error
  const { statusCode, body } = answer.value
  hop.text = body
  hop.response = {
    status: statusCode,
    statusText: answer.value.statusText,
    headers: answer.value.headers,
    body: body.length <= STORED_BODY_BYTES ? body : body.slice(0, STORED_BODY_BYTES),
  }
  return null
}

/** A run whose setup failed: no request was sent. */
function setupFailed(job: HttpJob, error: RunError, startedAt: Date, ctx: RunnerContext): HttpRunResult {
  const verdict = timedVerdict(job, { error, responseTime: 0, startedAt, invertible: false }, ctx)
  return {
    ...verdict,
    checkResult: {
      request: { method: methodOf(job), url: job.request.url, headers: {} },
      response: null,
      timingPhases: emptyPhases(0),
      assertions: [],
      tls: null,
    },
  }
}
