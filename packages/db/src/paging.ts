import { type SelectQueryBuilder, sql } from 'kysely'

/**
 * One page of a filtered query and the total it would have unpaged: `rowsOf` adds the selection and
 * order to `filtered`; the total counts `filtered` itself. The two run together.
 */
export async function fetchPage<DB, TB extends keyof DB, Row>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  rowsOf: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  page: { limit: number; offset: number },
): Promise<{ rows: Row[]; total: number }> {
  const [rows, count] = await Promise.all([
    rowsOf(filtered).limit(page.limit).offset(page.offset).execute(),
    filtered.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number((count as { total: number }).total) }
}
