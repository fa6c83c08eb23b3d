import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  // An invited member: the inviter's email, and until when the invitation's set-password link works.
  // Both stay null for a member who joined without an invitation; `invite_expires_at` is cleared when
  // the invited person sets a password (the invitation is accepted).
  await db.schema.alterTable('memberships').addColumn('invited_by', 'text').execute()
  await db.schema.alterTable('memberships').addColumn('invite_expires_at', 'text').execute()
}
