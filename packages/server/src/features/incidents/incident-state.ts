import type { IncidentStatus } from '@svc/core'

export interface PostedUpdate {
  status: string
  /** publicIncidentUpdateDate, ISO 8601 UTC. */
  public_date: string
  seq: number
}

export interface IncidentState {
  lastUpdateStatus: IncidentStatus
  startedAt: string
  resolvedAt: string | null
  duration: number | null
}

/**
 * What an incident's updates say about it: the latest update (by public date) gives its status, the
 * earliest its start. Once the latest is RESOLVED, the update that resolved it is the first of the
 * RESOLVED updates after the last unresolved one (later RESOLVED ones are follow-ups), and the duration
 * runs from the start to it.
 */
export function incidentStateOf(updates: PostedUpdate[]): IncidentState {
  const ordered = [...updates].sort((a, b) =>
    a.public_date < b.public_date ? -1 : a.public_date > b.public_date ? 1 : a.seq - b.seq,
  )
  const first = ordered[0]
  const last = ordered.at(-1)
  if (!first || !last) throw new Error('an incident always has at least one update')
  const startedAt = first.public_date
  if (last.status !== 'RESOLVED') {
    return { lastUpdateStatus: last.status as IncidentStatus, startedAt, resolvedAt: null, duration: null }
  }
  const lastUnresolved = ordered.findLastIndex((u) => u.status !== 'RESOLVED')
  const resolving = ordered[lastUnresolved + 1] ?? last
  const duration = Math.round((Date.parse(resolving.public_date) - Date.parse(startedAt)) / 1000)
  return { lastUpdateStatus: 'RESOLVED', startedAt, resolvedAt: resolving.public_date, duration }
}
