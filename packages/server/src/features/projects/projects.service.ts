import type { ServiceContext } from '../../context.ts'
import { conflict, notFound } from '../../http/errors.ts'
import type { DiffEntry } from './apply-project.ts'
import { type Deployment, previewDeploy, startDeployment } from './deployments.service.ts'
import * as repo from './projects.repo.ts'

export async function listProjects(ctx: ServiceContext, accountId: string) {
  const rows = await repo.listProjects(ctx, accountId)
  const counts = await repo.countBindings(
    ctx,
    rows.map((row) => row.id),
  )
  return rows.map((row) => projectOut(row, counts.get(row.id) ?? 0))
}

export async function getProject(ctx: ServiceContext, accountId: string, logicalId: string) {
  const row = await repo.findProject(ctx, accountId, logicalId)
  if (!row) throw notFound(`Project ${logicalId} not found`)
  const counts = await repo.countBindings(ctx, [row.id])
  return projectOut(row, counts.get(row.id) ?? 0)
}

/** An empty project (the hosted CLI's import makes one before its first deploy); 409 if it exists. */
export async function createProject(
  ctx: ServiceContext,
  accountId: string,
  project: { logicalId: string; name: string; repoUrl?: string | null },
) {
  if (!(await repo.insertProject(ctx, accountId, project))) {
    throw conflict(`A project with logicalId ${project.logicalId} exists already`)
  }
  return getProject(ctx, accountId, project.logicalId)
}

/**
 * Deletes a project: a deployment of no resources (its resources deleted, or detached with
 * `preserveResources`), then the project itself. A project that doesn't exist is already gone.
 */
export async function deleteProject(
  ctx: ServiceContext,
  accountId: string,
  logicalId: string,
  options: { preserveResources: boolean; dryRun: boolean },
): Promise<Deployment | { diff: DiffEntry[] } | undefined> {
  const row = await repo.findProject(ctx, accountId, logicalId)
  if (!row) return undefined
  const payload = { project: { logicalId, name: row.name, repoUrl: row.repo_url }, resources: [] }
  const deployOptions = { preserveResources: options.preserveResources, scheduleOnDeploy: false }
  if (options.dryRun) return previewDeploy(ctx, accountId, payload, deployOptions)
  return startDeployment(ctx, accountId, payload, deployOptions, 'DELETE')
}

function projectOut(row: Awaited<ReturnType<typeof repo.findProject>> & {}, resources: number) {
  return {
    id: row.id,
    logicalId: row.logical_id,
    name: row.name,
    repoUrl: row.repo_url,
    resources,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
