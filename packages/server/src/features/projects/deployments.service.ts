import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { isoNow, type ServiceContext } from '../../context.ts'
import { conflict, HttpError, notFound } from '../../http/errors.ts'
import { inTransaction } from '../../transactions.ts'
import { triggerCheck } from '../checks/check-triggers.service.ts'
import { applyProject, type DiffEntry, type ProjectPayload } from './apply-project.ts'
import { type DeployOptions, openedRequest, sealedRequest } from './deployment-requests.ts'
import { withHostedChecks } from './hosted-checks.ts'
import * as repo from './projects.repo.ts'

/**
 * A deployment runs in the background on the node that took it, in one transaction, under a lease
 * (`ctx.deploymentLeaseMs`). On PostgreSQL the node renews it beside the apply; SQLite can't write while
 * the apply holds the only writer, but there one process serves, and it knows what it runs. A
 * deployment past its lease belongs to a node that died: its transaction never committed, so nothing of
 * it was applied.
 */
const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED']

export interface Deployment {
  id: string
  projectLogicalId: string
  kind: 'DEPLOY' | 'DELETE'
  status: 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED'
  progress: number
  result: { diff: DiffEntry[] } | null
  error: { message: string; attributes?: Record<string, unknown> } | null
  createdAt: string
  updatedAt: string
  finishedAt: string | null
}

/**
 * What this process runs now: progress for the event stream, a way to cancel at once, and the row as it
 * started. Reads of a deployment running here answer from it: on SQLite the apply holds the only
 * connection until it commits, so a read of the store would wait for the end.
 */
const running = new Map<string, { progress: number; cancelled: boolean; row: repo.DeploymentRow }>()
const changes = new EventEmitter().setMaxListeners(0)

/** The diff a deploy would apply, worked out by applying it in a transaction that is rolled back. */
export async function previewDeploy(
  ctx: ServiceContext,
  accountId: string,
  payload: ProjectPayload,
  options: DeployOptions,
): Promise<{ diff: DiffEntry[] }> {
  payload = await withHostedChecks(ctx, accountId, payload)
  const rollback = new Error('dry run')
  let diff: DiffEntry[] = []
  try {
    await inTransaction(ctx, async (tx) => {
      diff = await applyProject(tx, accountId, payload, options)
      throw rollback
    })
  } catch (error) {
    if (error !== rollback) throw error
  }
  return { diff }
}

/**
 * Starts a deployment of `payload` (or, with `kind: 'DELETE'`, of nothing: the project's deletion).
 * A project with a deployment waiting or running answers 409 naming it.
 */
export async function startDeployment(
  ctx: ServiceContext,
  accountId: string,
  payload: ProjectPayload,
  options: DeployOptions,
  kind: 'DEPLOY' | 'DELETE' = 'DEPLOY',
): Promise<Deployment> {
  const id = randomUUID()
  payload = await withHostedChecks(ctx, accountId, payload)
  await inTransaction(ctx, async (tx) => {
    // The project row's lock orders two submissions of one project on PostgreSQL.
    await repo.lockOrCreateProject(tx, accountId, payload.project)
    const active = await liveActive(tx, accountId, payload.project.logicalId)
    if (active) {
      const error = conflict(`Project ${payload.project.logicalId} has a deployment in progress`)
      throw new HttpError(409, error.message, { attributes: { deploymentId: active.id } })
    }
    const now = isoNow(tx)
    await repo.insertDeployment(tx, {
      id,
      account_id: accountId,
      project_logical_id: payload.project.logicalId,
      kind,
      status: 'PENDING',
      request: sealedRequest(ctx, { payload, options }),
      result: null,
      error: null,
      lease_until: new Date(tx.clock.now().getTime() + ctx.deploymentLeaseMs).toISOString(),
      created_at: now,
      updated_at: now,
      finished_at: null,
    })
  })
  setImmediate(() => void runDeployment(ctx, accountId, id))
  return getDeployment(ctx, accountId, payload.project.logicalId, id)
}

async function runDeployment(ctx: ServiceContext, accountId: string, id: string): Promise<void> {
  if (!(await repo.updateDeployment(ctx, id, ['PENDING'], { status: 'RUNNING' }))) return
  const row = await repo.findDeployment(ctx, accountId, id)
  if (!row) return
  const { payload, options } = openedRequest(ctx, row.request)
  const state = { progress: 0, cancelled: Boolean(row.cancel_requested), row }
  running.set(id, state)
  const notify = () => changes.emit(id)
  const renewal = renewLease(ctx, id)
  try {
    const diff = await inTransaction(ctx, async (tx) => {
      const applied = await applyProject(tx, accountId, payload, options, {
        onProgress: (progress) => {
          state.progress = progress
          notify()
        },
        checkCancelled: () => {
          if (state.cancelled) throw new DeploymentCancelled()
        },
      })
      if (row.kind === 'DELETE') await deleteProjectRow(tx, accountId, payload.project.logicalId)
      return applied
    })
    await finish(ctx, id, { status: 'SUCCEEDED', progress: 100, result: JSON.stringify({ diff }) })
    if (options.scheduleOnDeploy) runNewChecksOnce(ctx, accountId, diff)
  } catch (error) {
    if (error instanceof DeploymentCancelled) {
      await finish(ctx, id, { status: 'CANCELLED' })
    } else {
      const known = error instanceof HttpError
      if (!known) console.error(`deployment ${id} failed`, error)
      const message = known ? error.message : 'The deployment failed: nothing was applied'
      const attributes = known ? error.attributes : undefined
      await finish(ctx, id, {
        status: 'FAILED',
        error: JSON.stringify({ message, ...(attributes && { attributes }) }),
      })
    }
  } finally {
    clearInterval(renewal)
    running.delete(id)
    notify()
  }
}

/** On PostgreSQL, keeps the lease of a running deployment alive every third of it. */
function renewLease(ctx: ServiceContext, id: string): NodeJS.Timeout | undefined {
  if (ctx.engine !== 'postgres') return undefined
  const timer = setInterval(() => {
    const until = new Date(ctx.clock.now().getTime() + ctx.deploymentLeaseMs).toISOString()
    repo.updateDeployment(ctx, id, ['RUNNING'], { lease_until: until }).catch((error: unknown) => {
      console.error(`renewing the lease of deployment ${id} failed`, error)
    })
  }, ctx.deploymentLeaseMs / 3)
  timer.unref()
  return timer
}

class DeploymentCancelled extends Error {}

/** `scheduleOnDeploy`: each check the deploy created runs once now, as a trigger would run it. */
function runNewChecksOnce(ctx: ServiceContext, accountId: string, diff: DiffEntry[]): void {
  for (const entry of diff) {
    if (entry.type !== 'check' || entry.action !== 'CREATE') continue
    triggerCheck(ctx, accountId, String(entry.physicalId)).catch((error: unknown) => {
      // Heartbeats don't run, and a check deleted meanwhile is gone: nothing to report.
      if (!(error instanceof HttpError)) console.error(`first run of check ${entry.physicalId} failed`, error)
    })
  }
}

async function finish(ctx: ServiceContext, id: string, changes: Parameters<typeof repo.updateDeployment>[3]) {
  await repo.updateDeployment(ctx, id, ['RUNNING', 'PENDING'], {
    ...changes,
    request: null,
    lease_until: null,
    finished_at: isoNow(ctx),
  })
}

async function deleteProjectRow(tx: ServiceContext, accountId: string, logicalId: string) {
  const project = await repo.findProject(tx, accountId, logicalId)
  if (project) await repo.deleteProject(tx, project.id)
}

export async function getDeployment(
  ctx: ServiceContext,
  accountId: string,
  projectLogicalId: string,
  id: string,
): Promise<Deployment> {
  const here = running.get(id)
  const row = here ? { ...here.row, progress: here.progress } : await repo.findDeployment(ctx, accountId, id)
  if (!row || row.account_id !== accountId || row.project_logical_id !== projectLogicalId)
    throw notFound(`Deployment ${id} not found`)
  return deploymentOut(here ? row : await withExpiredLease(ctx, row))
}

/** Waits up to `maxWaitMs` for the deployment to end; 408 while it still runs. */
export async function awaitDeployment(
  ctx: ServiceContext,
  accountId: string,
  projectLogicalId: string,
  id: string,
  maxWaitMs: number,
): Promise<Deployment> {
  const deadline = Date.now() + maxWaitMs
  for (;;) {
    const deployment = await getDeployment(ctx, accountId, projectLogicalId, id)
    if (FINAL.includes(deployment.status)) return deployment
    const left = deadline - Date.now()
    if (left <= 0) throw new HttpError(408, `Deployment ${id} is still running`)
    await changeOf(id, Math.min(left, 1000))
  }
}

/** Follows a deployment to its end, calling `onProgress` as it moves. */
export async function followDeployment(
  ctx: ServiceContext,
  accountId: string,
  projectLogicalId: string,
  id: string,
  onProgress: (progress: number) => void,
  isOpen: () => boolean,
): Promise<Deployment> {
  let last = -1
  for (;;) {
    const deployment = await getDeployment(ctx, accountId, projectLogicalId, id)
    const progress = deployment.progress
    if (progress !== last && !FINAL.includes(deployment.status)) {
      last = progress
      onProgress(progress)
    }
    if (FINAL.includes(deployment.status) || !isOpen()) return deployment
    await changeOf(id, 1000)
  }
}

export async function cancelDeployment(
  ctx: ServiceContext,
  accountId: string,
  projectLogicalId: string,
  id: string,
): Promise<Deployment> {
  const deployment = await getDeployment(ctx, accountId, projectLogicalId, id)
  if (FINAL.includes(deployment.status)) return deployment
  const here = running.get(id)
  if (here) here.cancelled = true
  else if (
    !(await repo.updateDeployment(ctx, id, ['PENDING'], {
      status: 'CANCELLED',
      request: null,
      finished_at: isoNow(ctx),
    }))
  ) {
    // Running on another node: it sees the request before it starts applying, or finishes first.
    await repo.updateDeployment(ctx, id, ['RUNNING'], { cancel_requested: true })
  }
  changes.emit(id)
  return awaitDeployment(ctx, accountId, projectLogicalId, id, 5_000).catch(() =>
    getDeployment(ctx, accountId, projectLogicalId, id),
  )
}

async function liveActive(ctx: ServiceContext, accountId: string, logicalId: string) {
  const active = await repo.activeDeployment(ctx, accountId, logicalId)
  if (!active) return undefined
  const checked = await withExpiredLease(ctx, active)
  return FINAL.includes(checked.status) ? undefined : checked
}

/** A deployment whose node died (its lease ran out) failed; nothing of it was applied. */
async function withExpiredLease(ctx: ServiceContext, row: repo.DeploymentRow): Promise<repo.DeploymentRow> {
  if (FINAL.includes(row.status) || !row.lease_until || row.lease_until > isoNow(ctx)) return row
  if (running.has(row.id)) return row
  const error = JSON.stringify({ message: 'The server running this deployment stopped: nothing was applied' })
  await repo.updateDeployment(ctx, row.id, ['PENDING', 'RUNNING'], {
    status: 'FAILED',
    error,
    request: null,
    lease_until: null,
    finished_at: isoNow(ctx),
  })
  return (await repo.findDeployment(ctx, row.account_id, row.id)) ?? row
}

function changeOf(id: string, timeoutMs: number): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(finish, timeoutMs)
    function finish() {
      clearTimeout(timer)
      changes.off(id, finish)
      done()
    }
    changes.once(id, finish)
  })
}

function deploymentOut(row: repo.DeploymentRow): Deployment {
  return {
    id: row.id,
    projectLogicalId: row.project_logical_id,
    kind: row.kind as Deployment['kind'],
    status: row.status as Deployment['status'],
    progress: Number(row.progress),
    result: row.result ? JSON.parse(row.result) : null,
    error: row.error ? JSON.parse(row.error) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  }
}
