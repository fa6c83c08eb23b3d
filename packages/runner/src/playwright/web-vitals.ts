import type { WebVitalName, WebVitals } from './types.ts'
import { WEB_VITALS } from './types.ts'

/** Each vital's good and poor thresholds, as web.dev (and Lighthouse, for TBT) score them. */
const THRESHOLDS: Record<WebVitalName, [number, number]> = {
  LCP: [2500, 4000],
  CLS: [0.1, 0.25],
  TBT: [200, 600],
  FCP: [1800, 3000],
  TTFB: [800, 1800],
}

export function webVitalsOf(raw: Record<string, unknown> | null): WebVitals {
  const out = {} as WebVitals
  for (const name of WEB_VITALS) {
    const value = raw?.[name]
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      out[name] = null
      continue
    }
    const [good, poor] = THRESHOLDS[name]
    const rounded = name === 'CLS' ? Math.round(value * 10_000) / 10_000 : Math.round(value)
    out[name] = {
      value: rounded,
      score: value <= good ? 'GOOD' : value <= poor ? 'NEEDS_IMPROVEMENT' : 'POOR',
    }
  }
  return out
}
