import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { Role } from '@svc/core'
import { type ApiKeysTable, isUniqueViolation } from '@svc/db'
import { isoNow, type ServiceContext } from '../../context.ts'
import { conflict, forbidden } from '../../http/errors.ts'
import { inTransaction } from '../../transactions.ts'
import * as repo from './api-keys.repo.ts'
import type { ApiKey, CreatedApiKey } from './api-keys.schemas.ts'

const KEY_PREFIX = 'svc_'

/** Keys carry 32 random bytes, so a plain SHA-256 is a safe one-way index (no salt or slow hash needed). */
export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey).digest('hex')
}

export function generateRawKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url')
}

export function maskKey(rawKey: string): string {
  return `${KEY_PREFIX}${'*'.repeat(8)}${rawKey.slice(-4)}`
}

export function toApiKey(row: ApiKeysTable): ApiKey {
  return {
    id: row.id,
    name: row.name,
    type: row.user_id ? 'USER' : 'SERVICE',
    maskedKey: row.masked_key,
    userId: row.user_id,
    accountId: row.account_id,
    role: row.role as Role | null,
    created_at: row.created_at,
  }
}

export type KeyOwner = { userId: string } | { accountId: string; role: Role }

/**
 * Creates a key and returns it with its raw value, the only time that value is ever shown. 403 when the
 * owner holds as many live keys as it may (ctx.limits): each key has its own rate budget.
 */
export async function createApiKey(
  ctx: ServiceContext,
  input: { name: string; owner: KeyOwner; rawKey?: string },
): Promise<CreatedApiKey> {
  const rawKey = input.rawKey ?? generateRawKey()
  const row: ApiKeysTable = {
    id: randomUUID(),
    name: input.name,
    key_hash: hashApiKey(rawKey),
    masked_key: maskKey(rawKey),
    user_id: 'userId' in input.owner ? input.owner.userId : null,
    account_id: 'accountId' in input.owner ? input.owner.accountId : null,
    role: 'role' in input.owner ? input.owner.role : null,
    created_at: isoNow(ctx),
    revoked_at: null,
  }
  try {
    await inTransaction(ctx, async (tx) => {
      await assertBelowKeyCap(tx, input.owner)
      await repo.insertApiKey(tx, row)
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('That key value is in use already')
    throw error
  }
  return { ...toApiKey(row), key: rawKey }
}

async function assertBelowKeyCap(ctx: ServiceContext, owner: KeyOwner): Promise<void> {
  const [ownerName, cap, what] =
    'userId' in owner
      ? [`user:${owner.userId}`, ctx.limits.keysPerUser, 'live user keys per user']
      : [`account:${owner.accountId}`, ctx.limits.serviceKeysPerAccount, 'live service keys per account']
  await repo.lockKeyOwner(ctx, ownerName)
  const live = await repo.countLiveKeys(
    ctx,
    'userId' in owner ? { userId: owner.userId } : { accountId: owner.accountId },
  )
  if (live >= cap)
    throw forbidden(`At most ${cap} ${what}: revoke one (DELETE /v1/api-keys/{id}) before creating another`)
}

export async function revokeApiKey(ctx: ServiceContext, id: string): Promise<void> {
  await repo.revokeApiKey(ctx, id, isoNow(ctx))
}

export async function listApiKeys(
  ctx: ServiceContext,
  filter: repo.ApiKeyFilter,
  page: { limit: number; offset: number },
): Promise<{ items: ApiKey[]; total: number }> {
  const { rows, total } = await repo.listApiKeys(ctx, filter, page)
  return { items: rows.map(toApiKey), total }
}

export async function findApiKey(ctx: ServiceContext, id: string): Promise<ApiKey | undefined> {
  const row = await repo.findApiKey(ctx, id)
  return row && !row.revoked_at ? toApiKey(row) : undefined
}

/** A live key by its hash (with its memberships), and a key by id: for key-based sessions. */
export const keyLookup = { findLiveKeyByHash: repo.findLiveKeyByHash, findApiKey: repo.findApiKey }
