import { Type } from 'typebox'
import { invalid } from './errors.ts'
import type { Page } from './pagination.ts'

/**
 * Lists the hosted API pages by cursor (`{length, entries, nextId}` and the like): a client sends
 * back the `nextId` of one page to get the next. svc's cursor is opaque: the offset of the next item.
 */
export const CursorQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Items per page, 1 to 100.' })),
  nextId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'The `nextId` of the previous page.' }),
  ),
}

export const NextId = Type.Union([Type.String(), Type.Null()], {
  description: 'Send it back as `nextId` for the next page; null on the last page.',
})

/** The page a cursor query asks for: `limit` items from the one `nextId` names. */
export function cursorPageOf(query: { limit?: number; nextId?: string }, defaultLimit = 20): Page {
  const limit = query.limit ?? defaultLimit
  const offset = query.nextId === undefined ? 0 : offsetOf(query.nextId)
  return { limit, offset, page: Math.floor(offset / limit) + 1 }
}

/** The `length` and `nextId` of a page of `items` out of `total`. */
export function cursorOf(page: Page, items: unknown[], total: number) {
  const next = page.offset + items.length
  return {
    length: items.length,
    nextId: items.length > 0 && next < total ? Buffer.from(`o${next}`).toString('base64url') : null,
  }
}

function offsetOf(nextId: string): number {
  const decoded = Buffer.from(nextId, 'base64url').toString()
  const offset = /^o(\d{1,9})$/.exec(decoded)?.[1]
  if (offset === undefined) throw invalid('querystring.nextId', 'is not a nextId this list answered')
  return Number(offset)
}
