import { existsSync, readFileSync } from 'node:fs'

/** One line of the events file the child's preload and reporter write. */
export type RunEvent = Record<string, unknown> & { type: string; at: number }

export function readEvents(file: string): RunEvent[] {
  if (!existsSync(file)) return []
  const events: RunEvent[] = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue
    try {
      events.push(JSON.parse(line))
    } catch {}
  }
  return events
}
