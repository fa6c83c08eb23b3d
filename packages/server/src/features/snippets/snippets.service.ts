import type { SnippetsTable } from '@svc/db'
import type { Selectable } from 'kysely'
import { isoNow, type ServiceContext } from '../../context.ts'
import { invalid, notFound } from '../../http/errors.ts'
import type { Page } from '../../http/pagination.ts'
import * as repo from './snippets.repo.ts'
import type { Snippet, SnippetBody } from './snippets.schemas.ts'

/** Code snippets of an account: scripts that checks and groups name as their setup and teardown. */

function toSnippet(row: Selectable<SnippetsTable>): Snippet {
  return {
    id: Number(row.id),
    name: row.name,
    script: row.script,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

export async function createSnippet(ctx: ServiceContext, accountId: string, input: SnippetBody) {
  const row = await repo.insertSnippet(ctx, {
    account_id: accountId,
    name: input.name,
    script: input.script,
    created_at: isoNow(ctx),
    updated_at: null,
  })
  return toSnippet(row)
}

export async function getSnippet(ctx: ServiceContext, accountId: string, id: number): Promise<Snippet> {
  const row = await repo.findSnippet(ctx, accountId, id)
  if (!row) throw notFound(`Snippet ${id} not found`)
  return toSnippet(row)
}

export async function listSnippets(ctx: ServiceContext, accountId: string, page: Page) {
  const { rows, total } = await repo.listSnippets(ctx, accountId, page)
  return { items: rows.map(toSnippet), total }
}

export async function updateSnippet(ctx: ServiceContext, accountId: string, id: number, input: SnippetBody) {
  const row = await repo.updateSnippet(ctx, accountId, id, {
    name: input.name,
    script: input.script,
    updated_at: isoNow(ctx),
  })
  if (!row) throw notFound(`Snippet ${id} not found`)
  return toSnippet(row)
}

export async function deleteSnippet(ctx: ServiceContext, accountId: string, id: number): Promise<void> {
  if (!(await repo.deleteSnippet(ctx, accountId, id))) throw notFound(`Snippet ${id} not found`)
}

/** Refuses (400, naming the field) a snippet id that is not one of the account's. */
export async function assertSnippetsOfAccount(
  ctx: ServiceContext,
  accountId: string,
  fields: Record<string, number | null | undefined>,
): Promise<void> {
  for (const [path, id] of Object.entries(fields)) {
    if (id == null) continue
    if (!(await repo.findSnippet(ctx, accountId, id))) invalidSnippet(path, id)
  }
}

function invalidSnippet(path: string, id: number): never {
  throw invalid(path, `names snippet ${id}, which this account doesn't have`)
}

/** The scripts of the snippets `ids` names that still exist, by id (a deleted snippet runs nothing). */
export async function snippetScripts(ctx: ServiceContext, accountId: string, ids: number[]) {
  const scripts = new Map<number, string>()
  for (const id of new Set(ids)) {
    const row = await repo.findSnippet(ctx, accountId, id)
    if (row) scripts.set(id, row.script)
  }
  return scripts
}
