import type { ApiClient } from '../api-client.ts'
import type { Command, CommandContext } from '../command.ts'
import { listValue, stringValue } from '../command.ts'
import { printReport, REPORTERS, type Reporter, type RunReport, runLine } from './reporters.ts'

interface Check {
  id: string
  name: string
  tags: string[]
}

interface ConciseResult {
  checkResultLink: string
  checkId: string
  checkType: string
  name: string
  runLocation: string
  hasFailures: boolean
  hasErrors: boolean
  isDegraded: boolean
  isCancelled: boolean
  responseTime: number | null
}

interface CheckSession {
  checkSessionId: string
  status: string
  results: ConciseResult[]
}

export const trigger: Command = {
  name: 'trigger',
  summary:
    'Run deployed checks now (by --tag, --grep on names) as check sessions, wait for their results, exit 1 on a failure',
  options: {
    tag: { type: 'string', multiple: true },
    grep: { type: 'string' },
    reporter: { type: 'string', default: 'list' },
  },
  async run(ctx) {
    const reporter = stringValue(ctx.values, 'reporter') as Reporter
    if (!REPORTERS.includes(reporter)) {
      ctx.out.error(`--reporter must be one of ${REPORTERS.join(', ')}`)
      return 2
    }
    const client = ctx.client()
    const checks = await findChecks(client, ctx)
    if (checks.length === 0) {
      ctx.out.error('No check matches')
      return 1
    }
    ctx.out.info(`Running ${checks.length} check(s)…`)
    const { data } = await client.request<{ sessions: CheckSession[] }>(
      'POST',
      '/v1/check-sessions/trigger',
      {
        body: { target: { checkId: checks.map((check) => check.id) } },
      },
    )
    const perSession = await Promise.all(
      data.sessions.map(async (session) => {
        const done = await awaitCompletion(client, session.checkSessionId)
        const runs = await Promise.all(done.results.map((result) => reportOf(client, result)))
        if (reporter === 'list') for (const run of runs) ctx.out.info(runLine(ctx, run))
        return runs
      }),
    )
    const runs = perSession.flat()
    printReport(ctx, reporter, runs, 'svc trigger')
    return runs.every((run) => run.passed) ? 0 : 1
  },
}

async function findChecks(client: ApiClient, ctx: CommandContext): Promise<Check[]> {
  const tags = listValue(ctx.values, 'tag')
  const grep = stringValue(ctx.values, 'grep')
  const checks = await client.list<Check>('/v1/checks')
  return checks
    .filter((check) => tags.every((tag) => check.tags.includes(tag)))
    .filter((check) => !grep || new RegExp(grep, 'i').test(check.name))
}

/** Long-polls the session's completion (408: still running, ask again). */
async function awaitCompletion(client: ApiClient, sessionId: string): Promise<CheckSession> {
  for (;;) {
    const { status, data } = await client.request<CheckSession>(
      'GET',
      `/v1/check-sessions/${sessionId}/completion`,
      { query: { maxWaitSeconds: 30 }, accept: [408] },
    )
    if (status !== 408) return data
  }
}

async function reportOf(client: ApiClient, result: ConciseResult): Promise<RunReport> {
  const passed = !result.hasFailures && !result.hasErrors && !result.isCancelled
  let error: string | null = result.isCancelled ? 'cancelled' : null
  if (!passed && !error) {
    const path = new URL(result.checkResultLink).pathname
    const full = await client.get<{ error?: { message?: string } | null }>(path).catch(() => undefined)
    error = full?.error?.message ?? 'failed'
  }
  return {
    checkId: result.checkId,
    name: result.name,
    checkType: result.checkType,
    location: result.runLocation,
    passed,
    degraded: result.isDegraded,
    responseTime: result.responseTime ?? 0,
    error,
  }
}
