import type { ProjectResourcesTable } from '@svc/db'
import type { ServiceContext } from '../../context.ts'
import { badRequest } from '../../http/errors.ts'
import { assignedLocations, withAssignedLocations } from './location-assignments.ts'
import * as repo from './projects.repo.ts'
import { withDigestedSecrets } from './stored-payload.ts'

export type { ProjectPayload } from './resource-helpers.ts'

import {
  isRef,
  type Prepared,
  type ProjectPayload,
  RESOURCE_TYPES,
  type RefResolver,
  type ResourceType,
} from './resource-types.ts'

export type DiffAction = 'CREATE' | 'UPDATE' | 'DELETE' | 'DETACHED' | 'UNCHANGED'

export interface DiffEntry {
  type: string
  logicalId: string
  physicalId: string | number | null
  action: DiffAction
  /** For an update: the top-level payload fields that change. */
  changes?: string[]
}

export interface ApplyHooks {
  /** Called with 0–100 as resources are applied. */
  onProgress?(progress: number): void
  /** Throws to stop the deployment (its transaction then saves nothing). */
  checkCancelled?(): void
}

/**
 * Makes the account's resources what `payload` says, inside the caller's transaction: resources the
 * project deploys for the first time are created, changed ones updated, unchanged ones left untouched
 * (nothing written), and those that left the project deleted (or only detached when
 * `preserveResources`). Answers the diff. Throws a 400 naming the resource and field on a bad payload.
 */
export async function applyProject(
  tx: ServiceContext,
  accountId: string,
  payload: ProjectPayload,
  options: { preserveResources: boolean },
  hooks: ApplyHooks = {},
): Promise<DiffEntry[]> {
  const project = await repo.lockOrCreateProject(tx, accountId, payload.project)
  const bindings = new Map((await repo.bindingsOf(tx, project.id)).map((b) => [keyOf(b), b]))
  const incoming = orderedResources(payload)
  const run: ApplyRun = {
    tx,
    accountId,
    payload,
    projectId: project.id,
    hooks,
    physical: new Map(),
    isLive: await liveness(tx, accountId, [...bindings.values()]),
    assigned: assignedLocations(payload),
    diff: [],
    saves: [],
    creating: [],
    lastTurnMs: performance.now(),
    total: incoming.length + bindings.size,
    done: 0,
  }
  for (const { resource, index } of incoming) {
    hooks.checkCancelled?.()
    const key = keyOf({ resource_type: resource.type, logical_id: resource.logicalId })
    const binding = bindings.get(key)
    bindings.delete(key)
    const creatingType = run.creating[0]?.type
    if (
      creatingType &&
      (creatingType !== RESOURCE_TYPES[resource.type] || run.creating.length >= CREATE_BATCH)
    )
      await createAll(run)
    await applyResource(run, resource, index, binding)
  }
  await createAll(run)
  await removeLeaving(run, [...bindings.values()], options.preserveResources)
  await repo.saveBindings(tx, run.saves)
  hooks.onProgress?.(100)
  return run.diff.map(withPublicId)
}

/** One apply's state: the physical ids so far (references resolve to them), the diff, bindings to save. */
interface ApplyRun {
  tx: ServiceContext
  accountId: string
  payload: ProjectPayload
  projectId: string
  hooks: ApplyHooks
  physical: Map<string, string>
  isLive: (binding: BindingRow) => Promise<boolean>
  assigned: Map<string, string[]>
  diff: DiffEntry[]
  saves: ProjectResourcesTable[]
  /** New resources of one type that creates many at once, created before a resource of another type. */
  creating: { type: ResourceType; prepared: Prepared; entry: DiffEntry; bind(physicalId: string): void }[]
  /** When the apply last gave the event loop a turn (see giveTurn). */
  lastTurnMs: number
  total: number
  done: number
}

type Resource = ProjectPayload['resources'][number]

async function applyResource(run: ApplyRun, resource: Resource, index: number, binding?: BindingRow) {
  if (resource.member === false) {
    // A resource the project only refers to (the CLI's `fromId`): it keeps its owner.
    if (resource.physicalId != null) run.physical.set(resource.logicalId, String(resource.physicalId))
    return
  }
  const { tx, accountId } = run
  const type = RESOURCE_TYPES[resource.type] as ResourceType
  const path = `resources.${index}.payload`
  const resourcePayload = await withAssignedLocations(
    tx,
    accountId,
    run.payload,
    resource,
    run.assigned,
    (id) => run.physical.get(id),
  )
  const prepared = type.bodyOf(asObject(resourcePayload, path), resolverOf(run), path)
  const stored = canonicalJson(withDigestedSecrets(tx.secretBox, resourcePayload))
  const live = binding !== undefined && (await run.isLive(binding))
  const base = { type: resource.type, logicalId: resource.logicalId }
  const sourceFile = resource.sourceFile ?? null
  const bind = (physicalId: string) => {
    run.physical.set(resource.logicalId, physicalId)
    // A moved construct changes only the binding: the resource itself stays untouched.
    if (entry.action !== 'UNCHANGED' || binding?.source_file !== sourceFile) {
      run.saves.push({
        project_id: run.projectId,
        resource_type: resource.type,
        logical_id: resource.logicalId,
        physical_id: physicalId,
        payload: stored,
        source_file: sourceFile,
      })
    }
  }
  let entry: DiffEntry
  if (binding && live && binding.payload === stored) {
    entry = { ...base, physicalId: binding.physical_id, action: 'UNCHANGED' }
  } else if (binding && live && sameResource(type, binding.payload, prepared)) {
    await type.update(tx, accountId, binding.physical_id, prepared)
    const changes = changedFields(JSON.parse(binding.payload), JSON.parse(stored))
    entry = { ...base, physicalId: binding.physical_id, action: 'UPDATE', changes }
  } else {
    // New, deleted outside the project, or changed in what can't change in place: made anew.
    if (binding && live) await type.remove(tx, accountId, binding.physical_id)
    entry = { ...base, physicalId: null, action: 'CREATE' }
    if (type.createMany) run.creating.push({ type, prepared, entry, bind })
    else entry.physicalId = await type.create(tx, accountId, prepared)
  }
  if (entry.physicalId !== null) bind(String(entry.physicalId))
  await recordDone(run, entry)
}

/**
 * New resources are created this many at a time: few statements for many, and (on SQLite, where the
 * apply gives the event loop a turn only between steps) no step long enough to hold it.
 */
const CREATE_BATCH = 100

/** Creates the resources waiting in `run.creating` (all of one type), in one call. */
async function createAll(run: ApplyRun) {
  const creating = run.creating
  run.creating = []
  const first = creating[0]
  if (!first?.type.createMany) return
  run.hooks.checkCancelled?.()
  const ids = await first.type.createMany(
    run.tx,
    run.accountId,
    creating.map(({ prepared }) => prepared),
  )
  creating.forEach(({ entry, bind }, index) => {
    entry.physicalId = ids[index] as string
    bind(entry.physicalId)
  })
  await giveTurn(run)
}

/** The physical id a `{ref}` names: of a resource applied before this one, or a 400. */
function resolverOf(run: ApplyRun): RefResolver {
  return (ref, path) => {
    if (ref === null || ref === undefined) return null
    if (!isRef(ref)) return String(ref)
    const id = run.physical.get(ref.ref)
    if (id === undefined)
      throw badRequest(`${path} refers to "${ref.ref}", which this project doesn't deploy`)
    return id
  }
}

/** What left the project goes after the rest, dependents first (subscriptions, checks, then groups). */
async function removeLeaving(run: ApplyRun, leaving: BindingRow[], preserveResources: boolean) {
  leaving.sort((a, b) => orderOf(b.resource_type) - orderOf(a.resource_type))
  for (const binding of leaving) {
    run.hooks.checkCancelled?.()
    const type = RESOURCE_TYPES[binding.resource_type]
    if (!preserveResources && type && (await run.isLive(binding))) {
      await type.remove(run.tx, run.accountId, binding.physical_id)
    }
    await repo.deleteBinding(run.tx, run.projectId, binding.resource_type, binding.logical_id)
    await recordDone(run, {
      type: binding.resource_type,
      logicalId: binding.logical_id,
      physicalId: binding.physical_id,
      action: preserveResources ? 'DETACHED' : 'DELETE',
    })
  }
}

/** Adds a resource's entry to the diff and reports progress. */
async function recordDone(run: ApplyRun, entry: DiffEntry) {
  run.diff.push(entry)
  run.done++
  run.hooks.onProgress?.(Math.floor((100 * run.done) / run.total))
  await giveTurn(run)
}

/**
 * On SQLite every statement runs synchronously and each await resolves at once, so an apply would hold
 * the event loop from start to end (bench/deploy.ts measured 1.1 s of 1.2 s): it is given a turn once
 * `TURN_AFTER_MS` have passed. Requests that read no store go through then; those that do still wait
 * for the transaction's connection, SQLite's only one, until it commits.
 */
async function giveTurn(run: ApplyRun) {
  if (run.tx.engine !== 'sqlite' || performance.now() - run.lastTurnMs < TURN_AFTER_MS) return
  await new Promise(setImmediate)
  run.lastTurnMs = performance.now()
}

const TURN_AFTER_MS = 20

/**
 * Whether a bound resource still exists (it may have been deleted outside the project): types that can
 * are asked once for all their bound ids, the others one by one.
 */
async function liveness(tx: ServiceContext, accountId: string, bindings: BindingRow[]) {
  const known = new Map<string, Set<string>>()
  for (const [name, type] of Object.entries(RESOURCE_TYPES)) {
    if (!type.existing) continue
    const ids = bindings.filter((b) => b.resource_type === name).map((b) => b.physical_id)
    if (ids.length > 0) known.set(name, await type.existing(tx, accountId, ids))
  }
  return async (binding: BindingRow): Promise<boolean> => {
    const found = known.get(binding.resource_type)
    if (found) return found.has(binding.physical_id)
    const type = RESOURCE_TYPES[binding.resource_type]
    return type ? type.exists(tx, accountId, binding.physical_id) : false
  }
}

type BindingRow = Awaited<ReturnType<typeof repo.bindingsOf>>[number]

/** The payload's resources, checked for type and uniqueness, in the order they must be applied. */
function orderedResources(payload: ProjectPayload) {
  const seen = new Set<string>()
  payload.resources.forEach((resource, index) => {
    if (resource.member !== false && !(resource.type in RESOURCE_TYPES)) {
      throw badRequest(
        `resources.${index}.type "${resource.type}" can't be deployed by svc yet (it deploys ${Object.keys(RESOURCE_TYPES).join(', ')})`,
      )
    }
    const key = keyOf({ resource_type: resource.type, logical_id: resource.logicalId })
    if (seen.has(key)) throw badRequest(`resources.${index}.logicalId "${resource.logicalId}" is used twice`)
    seen.add(key)
  })
  return payload.resources
    .map((resource, index) => ({ resource, index }))
    .sort((a, b) => orderOf(a.resource.type) - orderOf(b.resource.type) || a.index - b.index)
}

const orderOf = (type: string) => RESOURCE_TYPES[type]?.order ?? -1

const keyOf = (b: { resource_type: string; logical_id: string }) => `${b.resource_type}\u0000${b.logical_id}`

/** Whether the bound resource can take `prepared` in place (else it is made anew: a check's new type). */
function sameResource(type: ResourceType, storedPayload: string, prepared: Prepared): boolean {
  return type.sameResource?.(JSON.parse(storedPayload) as Record<string, unknown>, prepared) ?? true
}

/** Numeric ids (groups, channels) as numbers, as the API answers them. */
function withPublicId(entry: DiffEntry): DiffEntry {
  const id = entry.physicalId
  return typeof id === 'string' && /^\d+$/.test(id) ? { ...entry, physicalId: Number(id) } : entry
}

function asObject(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest(`${path} must be object`)
  return value as Record<string, unknown>
}

function changedFields(before: unknown, after: unknown): string[] {
  const a = (before ?? {}) as Record<string, unknown>
  const b = (after ?? {}) as Record<string, unknown>
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((key) => canonicalJson(a[key]) !== canonicalJson(b[key]))
    .sort()
}

/** JSON with object keys sorted, so the same payload always compares equal. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, (v as Record<string, unknown>)[k]]),
          )
        : v,
    ) ?? 'null'
  )
}
