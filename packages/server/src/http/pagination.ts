import type { FastifyReply } from 'fastify'

export interface Page {
  limit: number
  page: number
  offset: number
}

export function pageOf(query: { limit?: number; page?: number }): Page {
  const limit = query.limit ?? 10
  const page = query.page ?? 1
  return { limit, page, offset: (page - 1) * limit }
}

// Lists answer a bare array; the total travels in `content-range: items FIRST-LAST/TOTAL` (`items */TOTAL` when empty).
export function sendPage<T>(reply: FastifyReply, page: Page, items: T[], total: number): T[] {
  const range = items.length === 0 ? '*' : `${page.offset}-${page.offset + items.length - 1}`
  reply.header('content-range', `items ${range}/${total}`)
  return items
}
