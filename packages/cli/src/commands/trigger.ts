import type { ApiClient } from '../api-client.ts'
import type { Command, CommandContext } from '../command.ts'
import { listValue, stringValue } from '../command.ts'
import { printReport, REPORTERS, type Reporter, type RunReport, runLine } from './reporters.ts'
import { envVariables } from './test.ts'

interface Check {
  id: string
  name: string
  checkType: string
  tags: string[]
  groupId: number | null
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
    "Run deployed checks now (by --tag, a check's own or its group's; --grep on names; --env KEY=VALUE over their variables) as check sessions, wait for their results, exit 1 on a failure",
  usage:
    'svc trigger [--tag TAG]... [--grep NAME_PATTERN] [--env KEY=VALUE]... [--reporter list|junit|github] [-o json]',
  options: {
    tag: { type: 'string', multiple: true },
    grep: { type: 'string' },
    env: { type: 'string', multiple: true, short: 'e' },
    reporter: { type: 'string', default: 'list' },
  },
  async run(ctx) {
    const reporter = stringValue(ctx.values, 'reporter') as Reporter
    if (!REPORTERS.includes(reporter)) {
      ctx.out.error(`--reporter must be one of ${REPORTERS.join(', ')}`)
      return 2
    }
    const variables = envVariables(ctx)
    if (!variables) return 2
    const grep = grepOf(ctx)
    if (grep instanceof Error) {
      ctx.out.error(grep.message)
      return 2
    }
    const client = ctx.client()
    const matching = await findChecks(client, ctx, grep)
    // A heartbeat is judged from its pings: it has nothing to run (the server would answer 404).
    const checks = matching.filter((check) => check.checkType !== 'HEARTBEAT')
    const heartbeats = matching.length - checks.length
    if (heartbeats > 0) {
      ctx.out.info(`Skipping ${heartbeats} heartbeat check(s): they are judged from their pings, not run`)
    }
    if (checks.length === 0) {
      ctx.out.error(heartbeats > 0 ? 'No check to run matches' : 'No check matches')
      return 1
    }
    ctx.out.info(`Running ${checks.length} check(s)…`)
    const { data } = await client.request<{ sessions: CheckSession[] }>(
      'POST',
      '/v1/check-sessions/trigger',
      {
        body: {
          target: { checkId: checks.map((check) => check.id) },
          ...(variables.length > 0 ? { environmentVariables: variables } : {}),
        },
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

function grepOf(ctx: CommandContext): RegExp | undefined | Error {
  const grep = stringValue(ctx.values, 'grep')
  if (grep === undefined) return undefined
  try {
    return new RegExp(grep, 'i')
  } catch (error) {
    return new Error(`--grep must be a regular expression: ${(error as Error).message}`)
  }
}

/** The checks with every `--tag` (their own or their group's, as the server matches tags) and a name `grep` finds. */
async function findChecks(client: ApiClient, ctx: CommandContext, grep: RegExp | undefined) {
  const tags = listValue(ctx.values, 'tag')
  const [checks, groups] = await Promise.all([
    client.list<Check>('/v1/checks'),
    tags.length > 0 ? client.list<{ id: number; tags: string[] }>('/v1/check-groups') : [],
  ])
  const groupTags = new Map(groups.map((group) => [group.id, group.tags]))
  const tagsOf = (check: Check) => [
    ...check.tags,
    ...(check.groupId === null ? [] : (groupTags.get(check.groupId) ?? [])),
  ]
  return checks
    .filter((check) => tags.every((tag) => tagsOf(check).includes(tag)))
    .filter((check) => !grep || grep.test(check.name))
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
