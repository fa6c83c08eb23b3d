/** Days of history a public page shows (today included). */
export const HISTORY_DAYS = 90
const DAY_MS = 86_400_000

/** The first day (its UTC midnight, in ms) a public page shows at `now`. */
export function historyStartMs(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (HISTORY_DAYS - 1) * DAY_MS
}
