import { randomUUID } from 'node:crypto'
import type { DeploymentsTable, ProjectResourcesTable, ProjectsTable } from '@svc/db'
import type { Insertable, Selectable, Updateable } from 'kysely'
import { isoNow, type ServiceContext } from '../../context.ts'
import { locked } from '../../transactions.ts'

/** The only SQL of `projects`, `project_resources` and `deployments`. */

export async function findProject(ctx: ServiceContext, accountId: string, logicalId: string) {
  return ctx.db
    .selectFrom('projects')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('logical_id', '=', logicalId)
    .executeTakeFirst()
}

export async function listProjects(ctx: ServiceContext, accountId: string) {
  return ctx.db
    .selectFrom('projects')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute()
}

/**
 * The project row, made on its first deploy, locked for the rest of the transaction: two nodes never
 * apply one project at once (SQLite runs one write transaction at a time anyway).
 */
export async function lockOrCreateProject(
  ctx: ServiceContext,
  accountId: string,
  project: { logicalId: string; name: string; repoUrl?: string | null },
): Promise<Selectable<ProjectsTable>> {
  const now = isoNow(ctx)
  await insertProject(ctx, accountId, project)
  const row = await locked(
    ctx,
    ctx.db
      .selectFrom('projects')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('logical_id', '=', project.logicalId),
    'exclusive',
  ).executeTakeFirstOrThrow()
  if (row.name !== project.name || row.repo_url !== (project.repoUrl ?? null)) {
    await ctx.db
      .updateTable('projects')
      .set({ name: project.name, repo_url: project.repoUrl ?? null, updated_at: now })
      .where('id', '=', row.id)
      .execute()
  }
  return row
}

/** Makes an empty project; false when the account has one of that logicalId already. */
export async function insertProject(
  ctx: ServiceContext,
  accountId: string,
  project: { logicalId: string; name: string; repoUrl?: string | null },
): Promise<boolean> {
  const now = isoNow(ctx)
  const result = await ctx.db
    .insertInto('projects')
    .values({
      id: randomUUID(),
      account_id: accountId,
      logical_id: project.logicalId,
      name: project.name,
      repo_url: project.repoUrl ?? null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['account_id', 'logical_id']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function deleteProject(ctx: ServiceContext, projectId: string) {
  await ctx.db.deleteFrom('projects').where('id', '=', projectId).execute()
}

export async function bindingsOf(ctx: ServiceContext, projectId: string) {
  return ctx.db.selectFrom('project_resources').selectAll().where('project_id', '=', projectId).execute()
}

export async function countBindings(ctx: ServiceContext, projectIds: string[]) {
  if (projectIds.length === 0) return new Map<string, number>()
  const rows = await ctx.db
    .selectFrom('project_resources')
    .select(['project_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('project_id', 'in', projectIds)
    .groupBy('project_id')
    .execute()
  return new Map(rows.map((r) => [r.project_id, Number(r.n)]))
}

/** The project binding of each resource of `type` among `physicalIds`, with its project. */
export async function ownersOf(ctx: ServiceContext, type: string, physicalIds: string[]) {
  if (physicalIds.length === 0) return []
  return ctx.db
    .selectFrom('project_resources')
    .innerJoin('projects', 'projects.id', 'project_resources.project_id')
    .select([
      'project_resources.physical_id',
      'project_resources.logical_id',
      'project_resources.source_file',
      'projects.id as project_id',
      'projects.logical_id as project_logical_id',
      'projects.name as project_name',
    ])
    .where('project_resources.resource_type', '=', type)
    .where('project_resources.physical_id', 'in', physicalIds)
    .execute()
}

/** Inserts or updates bindings, a few hundred rows a statement: a first deploy binds every resource. */
export async function saveBindings(ctx: ServiceContext, rows: ProjectResourcesTable[]) {
  for (let start = 0; start < rows.length; start += BINDINGS_PER_STATEMENT) {
    await ctx.db
      .insertInto('project_resources')
      .values(rows.slice(start, start + BINDINGS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['project_id', 'resource_type', 'logical_id']).doUpdateSet((eb) => ({
          physical_id: eb.ref('excluded.physical_id'),
          payload: eb.ref('excluded.payload'),
          source_file: eb.ref('excluded.source_file'),
        })),
      )
      .execute()
  }
}

/** 6 columns a row: far under SQLite's 32,766 and PostgreSQL's 65,535 parameters a statement. */
const BINDINGS_PER_STATEMENT = 500

export async function deleteBinding(ctx: ServiceContext, projectId: string, type: string, logicalId: string) {
  await ctx.db
    .deleteFrom('project_resources')
    .where('project_id', '=', projectId)
    .where('resource_type', '=', type)
    .where('logical_id', '=', logicalId)
    .execute()
}

export type DeploymentRow = Selectable<DeploymentsTable>

export async function insertDeployment(ctx: ServiceContext, row: Insertable<DeploymentsTable>) {
  await ctx.db.insertInto('deployments').values(row).execute()
}

export async function findDeployment(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('deployments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** The project's deployment that is waiting or running, if any (one past its lease included). */
export async function activeDeployment(ctx: ServiceContext, accountId: string, projectLogicalId: string) {
  return ctx.db
    .selectFrom('deployments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('project_logical_id', '=', projectLogicalId)
    .where('status', 'in', ['PENDING', 'RUNNING'])
    .orderBy('created_at', 'desc')
    .executeTakeFirst()
}

/** Moves a deployment on, only from one of `from` (so a cancel and a finish can't both win). */
export async function updateDeployment(
  ctx: ServiceContext,
  id: string,
  from: string[],
  changes: Omit<Updateable<DeploymentsTable>, 'id' | 'account_id'>,
): Promise<boolean> {
  const result = await ctx.db
    .updateTable('deployments')
    .set({ ...changes, updated_at: isoNow(ctx) })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Deployments whose request is stored as it came (before requests were sealed). */
export async function plainRequests(ctx: Pick<ServiceContext, 'db'>) {
  return ctx.db
    .selectFrom('deployments')
    .select(['id', 'request'])
    .where('request', 'is not', null)
    .where('request', 'not like', '{"sealedRequest":%')
    .execute()
}

/** Replaces a deployment's request if it still holds `before` (a deploy finishing meanwhile wins). */
export async function replaceRequest(
  ctx: Pick<ServiceContext, 'db'>,
  id: string,
  before: string,
  after: string,
) {
  const result = await ctx.db
    .updateTable('deployments')
    .set({ request: after })
    .where('id', '=', id)
    .where('request', '=', before)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
