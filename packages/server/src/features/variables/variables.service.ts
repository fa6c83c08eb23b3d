import { randomUUID } from 'node:crypto'
import { isUniqueViolation, type VariablesTable } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, conflict, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import * as repo from './variables.repo.ts'
import {
  type CreateVariableBody,
  type ListVariablesQuery,
  MASKED_VALUE,
  type UpdateVariableBody,
  type Variable,
} from './variables.schemas.ts'

/** Account-level environment variables. Locked and secret values are encrypted at rest and masked in every response. */

type Usage = Variable['usage']
const UNUSED: Usage = { checksCount: 0, checkGroupsCount: 0 }

function toVariable(row: VariablesTable, usage: Usage = UNUSED): Variable {
  const hidden = Boolean(row.locked) || Boolean(row.secret)
  return {
    id: row.id,
    key: row.key,
    value: hidden ? MASKED_VALUE : (row.value ?? ''),
    locked: Boolean(row.locked),
    secret: Boolean(row.secret),
    description: row.description,
    usage,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** Where a value is stored: plain, or sealed when it must not be readable at rest. */
function storedValue(ctx: ServiceContext, value: string, sealed: boolean) {
  return sealed
    ? { value: null, encrypted_value: ctx.secretBox.encrypt(value) }
    : { value, encrypted_value: null }
}

export function plainValue(ctx: ServiceContext, row: VariablesTable): string {
  return row.encrypted_value !== null ? ctx.secretBox.decrypt(row.encrypted_value) : (row.value ?? '')
}

export async function createVariable(ctx: ServiceContext, accountId: string, input: CreateVariableBody) {
  const now = isoNow(ctx)
  const locked = input.locked ?? false
  const secret = input.secret ?? false
  const row: VariablesTable = {
    id: randomUUID(),
    account_id: accountId,
    key: input.key,
    ...storedValue(ctx, input.value, locked || secret),
    locked,
    secret,
    description: input.description ?? '',
    created_at: now,
    updated_at: now,
  }
  try {
    await repo.insertVariable(ctx, row)
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`Variable ${input.key} exists already`)
    throw error
  }
  return toVariable(row)
}

export async function getVariable(ctx: ServiceContext, accountId: string, key: string): Promise<Variable> {
  const row = await repo.findVariable(ctx, accountId, key)
  if (!row) throw notFound(`Variable ${key} not found`)
  return toVariable(row, (await usageOf(ctx, accountId, [key])).get(key))
}

/** Checks and groups whose definitions refer to each key (`{{KEY}}`, `process.env.KEY`). */
async function usageOf(ctx: ServiceContext, accountId: string, keys: string[]) {
  const usage = new Map<string, Usage>()
  for (const { key, ownerType, count } of await repo.countReferences(ctx, accountId, keys)) {
    const counts = usage.get(key) ?? { ...UNUSED }
    if (ownerType === 'check') counts.checksCount = count
    else counts.checkGroupsCount = count
    usage.set(key, counts)
  }
  return usage
}

export async function listVariables(
  ctx: ServiceContext,
  accountId: string,
  query: ListVariablesQuery,
  page: Page,
) {
  const { rows, total } = await repo.listVariables(
    ctx,
    accountId,
    { keyPattern: query.key, locked: query.locked },
    page,
  )
  const usage = await usageOf(
    ctx,
    accountId,
    rows.map((row) => row.key),
  )
  return { items: rows.map((row) => toVariable(row, usage.get(row.key))), total }
}

export async function updateVariable(
  ctx: ServiceContext,
  accountId: string,
  key: string,
  input: UpdateVariableBody,
) {
  if (input.key !== undefined && input.key !== key) {
    throw badRequest('body.key cannot be changed: delete the variable and create a new one', {
      errors: [{ path: 'body.key', message: 'cannot be changed' }],
    })
  }
  const row = await repo.findVariable(ctx, accountId, key)
  if (!row) throw notFound(`Variable ${key} not found`)
  if (row.secret && input.secret === false) {
    throw badRequest('body.secret cannot be unset: a secret stays secret', {
      errors: [{ path: 'body.secret', message: 'a secret cannot be made non-secret' }],
    })
  }
  const locked = input.locked ?? Boolean(row.locked)
  const secret = input.secret ?? Boolean(row.secret)
  // A hidden value reads ***masked***: sent back (read, edit, write), it means "keep", like check variables.
  const sentBack = input.value === MASKED_VALUE && Boolean(row.locked || row.secret)
  const value = input.value === undefined || sentBack ? plainValue(ctx, row) : input.value
  const changes = {
    ...storedValue(ctx, value, locked || secret),
    locked,
    secret,
    description: input.description ?? row.description,
    updated_at: isoNow(ctx),
  }
  await repo.updateVariable(ctx, row.id, changes)
  return toVariable({ ...row, ...changes }, (await usageOf(ctx, accountId, [key])).get(key))
}

export async function deleteVariable(ctx: ServiceContext, accountId: string, key: string): Promise<void> {
  const row = await repo.findVariable(ctx, accountId, key)
  if (!row) throw notFound(`Variable ${key} not found`)
  await repo.deleteVariable(ctx, row.id)
}

/** Records which account variables new checks refer to, for the variables' `usage`. */
export const recordReferencesOfNew = repo.insertReferences
