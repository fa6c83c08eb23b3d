import type { Command, CommandContext } from '../command.ts'
import { listValue, stringValue } from '../command.ts'
import { formatIssue, loadProject, synthesize, validateProject } from '../project/load-project.ts'
import { printReport, REPORTERS, type Reporter, type RunReport, runLine } from './reporters.ts'
import { followTestSession, reportOf } from './sessions.ts'

/** Check types judged from pings, not run: `svc test` leaves them out. */
const NOT_RUN = new Set(['HEARTBEAT'])

export const test: Command = {
  name: 'test',
  summary:
    'Run the project’s checks once on the server without deploying them; results stream in (--grep, --tags, --location, --env KEY=VALUE, --reporter list|junit|github); exit 1 on a failure',
  options: {
    config: { type: 'string' },
    grep: { type: 'string' },
    tags: { type: 'string', multiple: true },
    location: { type: 'string' },
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
    const project = await loadProject(ctx.cwd, stringValue(ctx.values, 'config'))
    const issues = validateProject(project)
    if (issues.length > 0) {
      ctx.out.error(`${issues.length} problem(s) in the project; nothing was sent:`)
      for (const issue of issues) ctx.out.error(`  ${formatIssue(issue, project.dir)}`)
      return 1
    }
    const jobs = checkJobs(ctx, synthesize(project).resources, variables)
    if (jobs.length === 0) {
      ctx.out.error('No check matches')
      return 1
    }
    const client = ctx.client()
    const location = stringValue(ctx.values, 'location')
    const { data: session } = await client.request<{ testSessionId: string; testSessionLink: string }>(
      'POST',
      '/v1/test-sessions/run',
      {
        body: {
          name: project.config.projectName,
          checkRunJobs: jobs,
          ...(location ? { runLocation: location } : {}),
        },
      },
    )
    ctx.out.info(`Running ${jobs.length} check(s)… (${session.testSessionLink})`)
    const runs: RunReport[] = []
    await followTestSession(client, session.testSessionId, async (result) => {
      const run = await reportOf(client, result)
      runs.push(run)
      if (reporter === 'list') ctx.out.info(runLine(ctx, run))
    })
    printReport(ctx, reporter, runs, 'svc test')
    return runs.every((run) => run.passed) ? 0 : 1
  },
}

/** `--env KEY=VALUE` pairs; undefined (after saying why) when one is malformed. */
export function envVariables(ctx: CommandContext): { key: string; value: string }[] | undefined {
  const variables: { key: string; value: string }[] = []
  for (const pair of listValue(ctx.values, 'env')) {
    const at = pair.indexOf('=')
    if (at <= 0) {
      ctx.out.error(`--env ${pair}: expected KEY=VALUE`)
      return undefined
    }
    variables.push({ key: pair.slice(0, at), value: pair.slice(at + 1) })
  }
  return variables
}

/**
 * The check payloads to run: filtered by `--grep` (name) and `--tags` (each value a comma-separated set
 * that must all match; several values: any of them), with `--env` variables over the check's own.
 */
function checkJobs(
  ctx: CommandContext,
  resources: { logicalId: string; type: string; payload: Record<string, unknown> }[],
  variables: { key: string; value: string }[],
): Record<string, unknown>[] {
  const grep = stringValue(ctx.values, 'grep')
  const pattern = grep ? new RegExp(grep, 'i') : undefined
  const tagSets = listValue(ctx.values, 'tags').map((value) => value.split(',').filter(Boolean))
  return resources
    .filter((resource) => resource.type === 'check' && !NOT_RUN.has(String(resource.payload.checkType)))
    .filter((resource) => !pattern || pattern.test(String(resource.payload.name)))
    .filter((resource) => {
      const tags = (resource.payload.tags as string[] | undefined) ?? []
      return tagSets.length === 0 || tagSets.some((set) => set.every((tag) => tags.includes(tag)))
    })
    .map((resource) => {
      const own = (resource.payload.environmentVariables as { key: string }[] | undefined) ?? []
      const overridden = new Set(variables.map((variable) => variable.key))
      return {
        ...resource.payload,
        logicalId: resource.logicalId,
        environmentVariables: [...own.filter((variable) => !overridden.has(variable.key)), ...variables],
      }
    })
}
