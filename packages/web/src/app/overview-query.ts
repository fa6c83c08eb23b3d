import { api } from './api.ts'
import type { OverviewCheck } from './types.ts'

/** The overview's query, shared by its page and by the start-up prefetch in main.tsx. */
export const overviewQuery = {
  queryKey: ['overview'],
  queryFn: () => api.get<{ checks: OverviewCheck[] }>('/v1/dashboard/overview'),
  refetchInterval: 3000,
  // The page mounting right after the start-up prefetch takes its answer instead of asking again.
  staleTime: 2500,
}
