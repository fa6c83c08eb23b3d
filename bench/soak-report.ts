/** One sample of bench/soak.ts: the server and its store at `atMs`, and what happened since the last. */
export interface SoakSample {
  atMs: number
  rssMb: number
  heapMb: number
  storeMb: number
  loopDelayP99Ms: number
  /** Check runs (heartbeats aside) that started since the last sample, and their drift's p99. */
  runs: number
  driftP99Ms: number
  /** Alert notifications in the outbox by status, and the receiver's failed answers so far. */
  delivered: number
  pending: number
  failed: number
  receiverFailed: number
}

export function sampleLine(s: SoakSample, startedMs: number): string {
  const minute = ((s.atMs - startedMs) / 60_000).toFixed(1).padStart(5)
  return (
    `${minute} min  RSS ${s.rssMb.toFixed(0)} MB  heap ${s.heapMb.toFixed(0)} MB  store ${s.storeMb.toFixed(1)} MB  ` +
    `loop p99 ${s.loopDelayP99Ms.toFixed(0)} ms  runs ${s.runs}  drift p99 ${s.driftP99Ms.toFixed(0)} ms  ` +
    `deliveries: ${s.delivered} delivered, ${s.pending} pending, ${s.failed} failed (receiver refused ${s.receiverFailed})`
  )
}

/** The least-squares slope of `ys` over `xs`. */
export function leastSquaresSlope(xs: number[], ys: number[]): number {
  const n = xs.length
  const meanX = xs.reduce((a, b) => a + b, 0) / n
  const meanY = ys.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    num += ((xs[i] as number) - meanX) * ((ys[i] as number) - meanY)
    den += ((xs[i] as number) - meanX) ** 2
  }
  return den === 0 ? Number.NaN : num / den
}

const MEASURES: [string, (s: SoakSample) => number, string][] = [
  ['RSS', (s) => s.rssMb, 'MB'],
  ['heap', (s) => s.heapMb, 'MB'],
  ['store size', (s) => s.storeMb, 'MB'],
  ['event-loop delay p99', (s) => s.loopDelayP99Ms, 'ms'],
  ['slot drift p99', (s) => s.driftP99Ms, 'ms'],
  ['runs per interval', (s) => s.runs, ''],
  ['deliveries pending', (s) => s.pending, ''],
  ['deliveries delivered', (s) => s.delivered, ''],
  ['deliveries failed for good', (s) => s.failed, ''],
]

export function slopeLines(samples: SoakSample[], slope: (xs: number[], ys: number[]) => number): string[] {
  const hours = samples.map((s) => s.atMs / 3_600_000)
  return MEASURES.map(([name, pick, unit]) => {
    const ys = samples.map(pick)
    const valid = ys.map((y, i) => [hours[i] as number, y] as const).filter(([, y]) => Number.isFinite(y))
    const perHour = slope(
      valid.map(([x]) => x),
      valid.map(([, y]) => y),
    )
    const mean = valid.reduce((sum, [, y]) => sum + y, 0) / valid.length
    return `${name.padEnd(28)} ${perHour >= 0 ? '+' : ''}${perHour.toFixed(2)} ${unit}/h   (mean ${mean.toFixed(1)} ${unit})`
  })
}
