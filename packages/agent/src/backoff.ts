/** Exponential backoff with jitter: between half and all of min(maxMs, baseMs * 2^(attempt - 1)). */
export function backoff(attempt: number, baseMs: number, maxMs: number): number {
  const delay = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1))
  return delay / 2 + Math.random() * (delay / 2)
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms))
}
