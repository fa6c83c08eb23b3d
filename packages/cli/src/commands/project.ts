import { type ApiClient, ApiError } from '../api-client.ts'
import type { Command, CommandContext } from '../command.ts'
import { stringValue } from '../command.ts'
import {
  cancelDeployment,
  type Deployment,
  type DiffEntry,
  followDeployment,
  formatDiff,
  runningDeploymentOf,
} from '../project/deployments.ts'
import {
  explainServerError,
  formatIssue,
  loadProject,
  locationIssues,
  type Project,
  synthesize,
  validateProject,
} from '../project/load-project.ts'

/** The project in the working directory, or undefined after printing what is wrong with it. */
async function validProject(ctx: CommandContext): Promise<Project | undefined> {
  const project = await loadProject(ctx.cwd, stringValue(ctx.values, 'config'))
  const issues = validateProject(project)
  if (issues.length === 0) return project
  ctx.out.error(`${issues.length} problem(s) in the project; nothing was sent:`)
  for (const issue of issues) ctx.out.error(`  ${formatIssue(issue, project.dir)}`)
  if (ctx.out.json) ctx.out.result({ valid: false, issues }, () => '')
  return undefined
}

export const validate: Command = {
  name: 'validate',
  summary: 'Load svc.config.ts and the check files, and say what is wrong, without any request',
  options: { config: { type: 'string' } },
  async run(ctx) {
    const project = await validProject(ctx)
    if (!project) return 1
    const resources = synthesize(project).resources
    ctx.out.result({ valid: true, files: project.files, resources: resources.length }, () => {
      return `Valid: ${project.constructs.length} constructs (${resources.length} resources) in ${project.files.length} files`
    })
    return 0
  },
}

export const synth: Command = {
  name: 'synth',
  summary: 'Print the deploy payload of the project (JSON)',
  options: { config: { type: 'string' } },
  async run(ctx) {
    const project = await validProject(ctx)
    if (!project) return 1
    const payload = synthesize(project)
    ctx.out.result(payload, () => JSON.stringify(payload, null, 2))
    return 0
  },
}

const deployOptions = {
  config: { type: 'string' },
  force: { type: 'boolean', short: 'f' },
  preview: { type: 'boolean' },
  'preserve-resources': { type: 'boolean' },
  'schedule-on-deploy': { type: 'boolean' },
} as const

export const deploy: Command = {
  name: 'deploy',
  summary: 'Show what changes on the server, ask, and apply it (--force in CI, --preview to only show)',
  options: deployOptions,
  async run(ctx) {
    const project = await validProject(ctx)
    if (!project) return 1
    const client = ctx.client()
    const payload = synthesize(project)
    const query = {
      preserveResources: ctx.values['preserve-resources'] === true,
      scheduleOnDeploy: ctx.values['schedule-on-deploy'] !== false,
    }
    const path = '/v1/projects/deploy'
    const served = await client.get<{ region: string }[]>('/v1/locations')
    const misplaced = locationIssues(
      project,
      served.map((location) => location.region),
    )
    if (misplaced.length > 0) {
      for (const issue of misplaced) ctx.out.error(formatIssue(issue, project.dir))
      return 1
    }
    const preview = await dryRun(client, project, payload, query)
    if (!preview) return 1
    const changes = preview.diff.filter((entry) => entry.action !== 'UNCHANGED')
    if (ctx.values.preview === true) {
      ctx.out.result(preview, () => `Preview of "${payload.project.name}":\n${formatDiff(preview.diff)}`)
      return 0
    }
    if (changes.length === 0 && preview.diff.length > 0) {
      ctx.out.result({ deployed: false, diff: preview.diff }, () => formatDiff(preview.diff))
      return 0
    }
    ctx.out.info(`Deploying "${payload.project.name}":\n${formatDiff(preview.diff)}`)
    if (!(await approved(ctx, 'Apply these changes?'))) return 1
    const deployment = await startOrExplain(ctx, () =>
      client.request<Deployment>('POST', path, { body: payload, query: { ...query, dryRun: false } }),
    )
    if (!deployment) return 1
    return finish(ctx, client, deployment, `Deployed "${payload.project.name}"`)
  },
}

export const destroy: Command = {
  name: 'destroy',
  summary: "Delete the project's resources from the server (--force in CI)",
  options: {
    config: { type: 'string' },
    force: { type: 'boolean', short: 'f' },
    'preserve-resources': { type: 'boolean' },
  },
  async run(ctx) {
    const project = await loadProject(ctx.cwd, stringValue(ctx.values, 'config'))
    const client = ctx.client()
    const path = `/v1/projects/${encodeURIComponent(project.config.logicalId)}`
    const query = { preserveResources: ctx.values['preserve-resources'] === true }
    const { data: preview } = await client.request<{ diff: DiffEntry[] }>('DELETE', path, {
      query: { ...query, dryRun: true },
    })
    ctx.out.info(`Destroying "${project.config.projectName}":\n${formatDiff(preview.diff)}`)
    if (!(await approved(ctx, 'Delete these resources?'))) return 1
    const started = await startOrExplain(ctx, () =>
      client.request<Deployment | { diff: DiffEntry[] }>('DELETE', path, { query }),
    )
    if (!started) return 1
    if (!('status' in started)) {
      ctx.out.result({ deleted: false, diff: started.diff }, () => 'Nothing to destroy')
      return 0
    }
    return finish(ctx, client, started, `Destroyed "${project.config.projectName}"`)
  },
}

/** The diff of the deploy, or undefined after naming the file and field of a server-side 400. */
async function dryRun(
  client: ApiClient,
  project: Project,
  payload: ReturnType<typeof synthesize>,
  query: Record<string, boolean>,
): Promise<{ diff: DiffEntry[] } | undefined> {
  try {
    const { data } = await client.request<{ diff: DiffEntry[] }>('POST', '/v1/projects/deploy', {
      body: payload,
      query: { ...query, dryRun: true },
    })
    return data
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error
    throw new Error(
      `The server refused the project: ${explainServerError(project, error.body?.message ?? '')}`,
    )
  }
}

async function approved(ctx: CommandContext, question: string): Promise<boolean> {
  if (ctx.values.force === true) return true
  if (await ctx.confirm(question)) return true
  ctx.out.error('Not applied: confirm on a terminal, or pass --force (e.g. in CI)')
  return false
}

async function startOrExplain<T>(
  ctx: CommandContext,
  start: () => Promise<{ data: T }>,
): Promise<T | undefined> {
  try {
    return (await start()).data
  } catch (error) {
    const running = runningDeploymentOf(error)
    if (!running) throw error
    ctx.out.error(`Another deployment of this project is running (${running}); try again when it ended`)
    return undefined
  }
}

async function finish(ctx: CommandContext, client: ApiClient, started: Deployment, success: string) {
  const cancel = () => {
    ctx.out.error('Cancelling the deployment…')
    void cancelDeployment(client, started)
  }
  process.once('SIGINT', cancel)
  try {
    const ended = await followDeployment(client, started, (progress) => {
      if (ctx.out.tty) ctx.out.info(ctx.out.style('dim', `  ${progress}%`))
    })
    if (ended.status !== 'SUCCEEDED') {
      ctx.out.error(`Deployment ${ended.status.toLowerCase()}: ${ended.error?.message ?? ''}`.trim())
      if (ctx.out.json) ctx.out.result(ended, () => '')
      return 1
    }
    ctx.out.result(ended, () => success)
    return 0
  } finally {
    process.removeListener('SIGINT', cancel)
  }
}
