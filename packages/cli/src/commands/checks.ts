import type { ApiClient } from '../api-client.ts'
import type { Command, CommandContext } from '../command.ts'
import { listValue, stringValue } from '../command.ts'
import { table } from '../output.ts'
import { printReport, REPORTERS, type Reporter, type RunReport, runLine } from './reporters.ts'

interface Check {
  id: string
  name: string
  checkType: string
  activated: boolean
  tags: string[]
  locations: string[]
  groupId: number | null
  frequency: number
}

interface CheckResult {
  runLocation: string
  responseTime: number
  hasFailures: boolean
  hasErrors: boolean
  isDegraded: boolean
  error: { message: string } | null
}

export const checksList: Command = {
  name: 'checks list',
  summary: 'List the checks of the account (--tag, --type, --search)',
  options: { tag: { type: 'string', multiple: true }, type: { type: 'string' }, search: { type: 'string' } },
  async run(ctx) {
    const checks = await findChecks(ctx.client(), ctx)
    ctx.out.result(checks, () =>
      table(
        ['ID', 'TYPE', 'NAME', 'ACTIVE', 'TAGS'],
        checks.map((check) => [
          check.id,
          check.checkType,
          check.name,
          String(check.activated),
          check.tags.join(','),
        ]),
      ),
    )
    return 0
  },
}

export const checksGet: Command = {
  name: 'checks get',
  summary: 'Show one check',
  usage: 'svc checks get <id>',
  async run(ctx) {
    const [id] = ctx.positionals
    if (!id) {
      ctx.out.error('Usage: svc checks get <id>')
      return 2
    }
    const check = await ctx.client().get<Record<string, unknown>>(`/v1/checks/${encodeURIComponent(id)}`)
    ctx.out.result(check, () =>
      Object.entries(check)
        .filter(([, value]) => value !== null && typeof value !== 'object')
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join('\n'),
    )
    return 0
  },
}

export const trigger: Command = {
  name: 'trigger',
  summary: 'Run deployed checks now (by --tag, --grep on names), wait for their results, exit 1 on a failure',
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
    const grep = stringValue(ctx.values, 'grep')
    const checks = (await findChecks(client, ctx)).filter(
      (check) => !grep || new RegExp(grep, 'i').test(check.name),
    )
    if (checks.length === 0) {
      ctx.out.error('No check matches')
      return 1
    }
    ctx.out.info(`Running ${checks.length} check(s)…`)
    const runs = await runAll(checks, 5, async (check) => {
      const run = await triggerOne(client, check)
      if (reporter === 'list') ctx.out.info(runLine(ctx, run))
      return run
    })
    printReport(ctx, reporter, runs, 'svc trigger')
    return runs.every((run) => run.passed) ? 0 : 1
  },
}

async function findChecks(client: ApiClient, ctx: CommandContext): Promise<Check[]> {
  const tags = listValue(ctx.values, 'tag')
  const checks = await client.list<Check>('/v1/checks', {
    checkType: stringValue(ctx.values, 'type'),
    name: stringValue(ctx.values, 'search'),
  })
  return checks.filter((check) => tags.every((tag) => check.tags.includes(tag)))
}

async function triggerOne(client: ApiClient, check: Check): Promise<RunReport> {
  const base = { checkId: check.id, name: check.name, checkType: check.checkType }
  try {
    const { data: result } = await client.request<CheckResult>('POST', `/v1/checks/${check.id}/trigger`)
    return {
      ...base,
      location: result.runLocation,
      passed: !result.hasFailures && !result.hasErrors,
      degraded: result.isDegraded,
      responseTime: result.responseTime,
      error: result.error?.message ?? null,
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return { ...base, location: '-', passed: false, degraded: false, responseTime: 0, error: message }
  }
}

/** Maps `items` with at most `limit` calls at once, in the items' order. */
async function runAll<T, R>(items: T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await map(items[index] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
