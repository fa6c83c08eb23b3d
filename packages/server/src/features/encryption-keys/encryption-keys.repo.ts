import type { EncryptionKeyVerifierTable } from '@svc/db'
import { sql } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/**
 * The only SQL for `encryption_key_verifier`, and the one list of every sealed column in the store, so
 * the key check at start and the rotation find them all. A feature that starts sealing a new column adds it
 * to SEALED_COLUMNS.
 */

type Db = Pick<ServiceContext, 'db'>

const VERIFIER_ID = 'store'

export async function findVerifier(ctx: Db): Promise<EncryptionKeyVerifierTable | undefined> {
  return ctx.db
    .selectFrom('encryption_key_verifier')
    .selectAll()
    .where('id', '=', VERIFIER_ID)
    .executeTakeFirst()
}

/** Writes the verifier unless another node wrote it first; the caller reads it back either way. */
export async function insertVerifierIfAbsent(
  ctx: Db,
  row: Omit<EncryptionKeyVerifierTable, 'id'>,
): Promise<void> {
  await ctx.db
    .insertInto('encryption_key_verifier')
    .values({ id: VERIFIER_ID, ...row })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute()
}

/** Marks a rotation to `rotatingTo` begun, if the verifier still names `keyId`. */
export async function startRotation(ctx: Db, keyId: string, rotatingTo: string, now: string): Promise<void> {
  await ctx.db
    .updateTable('encryption_key_verifier')
    .set({ rotating_to: rotatingTo, updated_at: now })
    .where('id', '=', VERIFIER_ID)
    .where('key_id', '=', keyId)
    .execute()
}

/** Ends the rotation to `keyId` once: true for the node whose update made it so. */
export async function finishRotation(ctx: Db, keyId: string, sealedCheck: string, now: string) {
  const result = await ctx.db
    .updateTable('encryption_key_verifier')
    .set({ key_id: keyId, sealed_check: sealedCheck, rotating_to: null, updated_at: now })
    .where('id', '=', VERIFIER_ID)
    .where('rotating_to', '=', keyId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** A column holding sealed values: the whole value (`plain`), or JSON with `sealed*` string fields. */
interface SealedColumn {
  table: 'variables' | 'checks' | 'check_groups' | 'alert_channels' | 'client_certificates' | 'deployments'
  column: 'encrypted_value' | 'definition' | 'config' | 'secrets' | 'request'
  form: 'plain' | 'json'
}

export const SEALED_COLUMNS: SealedColumn[] = [
  { table: 'variables', column: 'encrypted_value', form: 'plain' },
  { table: 'checks', column: 'definition', form: 'json' },
  { table: 'check_groups', column: 'definition', form: 'json' },
  { table: 'alert_channels', column: 'config', form: 'json' },
  { table: 'client_certificates', column: 'secrets', form: 'json' },
  { table: 'deployments', column: 'request', form: 'json' },
]

export interface SealedRow {
  id: string | number
  value: string
}

/** The next `limit` rows after `afterId` (in id order) whose column may hold a sealed value. */
export async function sealedRowsAfter(
  ctx: Db,
  place: SealedColumn,
  afterId: string | number | undefined,
  limit: number,
): Promise<SealedRow[]> {
  const column = sql.ref(place.column)
  // JSON.stringify writes no spaces: a sealed field is `"sealedValue":"v2:...`, an empty one is null.
  const holdsSealed =
    place.form === 'plain' ? sql`${column} is not null` : sql`${column} like ${'%"sealed%":"v%'}`
  const after = afterId === undefined ? sql`` : sql`and id > ${afterId}`
  const { rows } = await sql<SealedRow>`select id, ${column} as value from ${sql.table(place.table)}
    where ${holdsSealed} ${after} order by id limit ${limit}`.execute(ctx.db)
  return rows
}

/** Replaces a row's column if it still holds `before`: a save in between wins, and is seen next pass. */
export async function replaceSealedValue(
  ctx: Db,
  place: SealedColumn,
  row: SealedRow,
  after: string,
): Promise<boolean> {
  const column = sql.ref(place.column)
  const result = await sql`update ${sql.table(place.table)} set ${column} = ${after}
    where id = ${row.id} and ${column} = ${row.value}`.execute(ctx.db)
  return (result.numAffectedRows ?? 0n) > 0n
}

/** Sets the verifier to `keyId` whatever it named: only for the reset, with every value re-sealed. */
export async function replaceVerifier(ctx: Db, keyId: string, sealedCheck: string, now: string) {
  await ctx.db.deleteFrom('encryption_key_verifier').where('id', '=', VERIFIER_ID).execute()
  await insertVerifierIfAbsent(ctx, {
    key_id: keyId,
    sealed_check: sealedCheck,
    rotating_to: null,
    updated_at: now,
  })
}
