import { keepPreviousData } from '@tanstack/react-query'
import { api } from './api.ts'
import { OVERVIEW_PAGE_SIZE } from './overview-page-size.ts'
import type { Overview } from './types.ts'

/** The address's parameters the overview endpoint takes, in a fixed order so equal filters share a cache entry. */
const FORWARDED = ['id', 'q', 'status', 'type', 'tag', 'group', 'location', 'page'] as const

/** The endpoint's query string for the page's address (`?status=failing&page=2`). */
export function overviewParams(search: string): string {
  const from = new URLSearchParams(search)
  const to = new URLSearchParams({ limit: String(OVERVIEW_PAGE_SIZE) })
  for (const name of FORWARDED) {
    const value = from.get(name)?.trim()
    // A hand-edited address (`page=abc`) shows page 1, not the server's 400.
    if (value && (!(name === 'page' || name === 'group') || /^[1-9]\d{0,8}$/.test(value))) to.set(name, value)
  }
  return to.toString()
}

/**
 * The overview's query for one address, shared by its page and by the start-up prefetch in main.tsx.
 * Polled every 3 s, so a status change shows within 5 s; the previous page stays on screen while the
 * next filter or page loads.
 */
export const overviewQuery = (search: string) => {
  const params = overviewParams(search)
  return {
    queryKey: ['overview', params],
    queryFn: () => api.get<Overview>(`/v1/dashboard/overview?${params}`),
    refetchInterval: 3000,
    // The page mounting right after the start-up prefetch takes its answer instead of asking again.
    staleTime: 2500,
    placeholderData: keepPreviousData,
  }
}
