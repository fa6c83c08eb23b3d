import { isUniqueViolation } from '@svc/db'
import type { ServiceContext } from './context.ts'
import * as accountLookups from './features/accounts/account-lookups.service.ts'
import * as accounts from './features/accounts/accounts.service.ts'
import * as keys from './features/api-keys/api-keys.service.ts'
import { createPasswordLink } from './features/sessions/sessions.service.ts'

export const OWNER_EMAIL = 'owner@localhost'

/**
 * First start: when the store holds no account, creates an owner, an account named Default and a user
 * key, and a one-time link to set the owner's password. Returns what to print once, or undefined when the store was set up before. Two nodes starting
 * together on an empty PostgreSQL race on the owner's unique email: exactly one wins.
 */
export async function bootstrapFirstAccount(
  ctx: ServiceContext,
  presetKey: string | undefined,
): Promise<
  { accountId: string; apiKey: string; passwordLink: { url: string; expiresAt: string } } | undefined
> {
  if ((await accountLookups.countAccounts(ctx)) > 0) return undefined
  try {
    return await ctx.db.transaction().execute(async (db) => {
      const tx = { ...ctx, db }
      const user = await accounts.createUser(tx, { email: OWNER_EMAIL, name: 'Owner' })
      const account = await accounts.createAccount(tx, { name: 'Default' })
      await accounts.addMembership(tx, { userId: user.id, accountId: account.id, role: 'OWNER' })
      const key = await keys.createApiKey(tx, {
        name: 'First key',
        owner: { userId: user.id },
        rawKey: presetKey,
      })
      const passwordLink = await createPasswordLink(tx, user.id)
      return { accountId: account.id, apiKey: key.key, passwordLink }
    })
  } catch (error) {
    if (isUniqueViolation(error) || (error as { statusCode?: number }).statusCode === 409) return undefined
    throw error
  }
}
