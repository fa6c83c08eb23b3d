import type { ClientCertificatesTable } from '@svc/db'
import type { Insertable } from 'kysely'
import type { ServiceContext } from '../../context.ts'

/** The only SQL for `client_certificates`. */

export async function insertCertificate(ctx: ServiceContext, row: Insertable<ClientCertificatesTable>) {
  return ctx.db.insertInto('client_certificates').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function findCertificate(ctx: ServiceContext, accountId: string, id: string) {
  return ctx.db
    .selectFrom('client_certificates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** Newest first: the order in which a host's certificate is chosen. */
export async function listCertificates(ctx: ServiceContext, accountId: string) {
  return ctx.db
    .selectFrom('client_certificates')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute()
}

export async function deleteCertificate(
  ctx: ServiceContext,
  accountId: string,
  id: string,
): Promise<boolean> {
  const result = await ctx.db
    .deleteFrom('client_certificates')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
