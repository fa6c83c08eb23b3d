/**
 * bench/web-profile.ts: where a page load's main-thread time goes, for bench:web's BENCH_WEB_PROFILE=1.
 * It records a Chromium trace of one load (the renderer's tasks, with V8's CPU samples) and sums, per
 * kind of work (script compile and run, style, layout, paint, HTML parsing) and per JavaScript function
 * (self time), the time spent from navigation until `done` resolves.
 */
import type { Browser, Page } from 'playwright-core'

interface TraceEvent {
  name: string
  ph: string
  ts: number
  dur?: number
  pid: number
  tid: number
  args?: { name?: string; data?: { cpuProfile?: CpuProfileChunk; timeDeltas?: number[] } }
}
interface CpuProfileNode {
  id: number
  callFrame: { functionName: string; url?: string; lineNumber: number }
  parent?: number
}
interface CpuProfileChunk {
  nodes?: CpuProfileNode[]
  samples?: number[]
}

/** The renderer's work that shows up between navigation and the first rows, by trace event name. */
const WORK = [
  'ParseHTML',
  'v8.compile',
  'v8.compileModule',
  'EvaluateScript',
  'v8.evaluateModule',
  'FunctionCall',
  'TimerFire',
  'FireAnimationFrame',
  'RunMicrotasks',
  'UpdateLayoutTree',
  'Layout',
  'Paint',
  'Layerize',
  'MajorGC',
  'MinorGC',
]
const CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8.execute',
  'v8',
  'disabled-by-default-v8.cpu_profiler',
  'blink.user_timing',
].join(',')

export interface LoadProfile {
  /** Milliseconds per kind of work, summed over the renderer's main thread. */
  work: [string, number][]
  /** The JavaScript functions with the most self time (ms), as `name file:line`. */
  functions: [string, number][]
}

/** Traces one load of `url` in `page` until `done` resolves, and summarizes the renderer's main thread. */
export async function profileLoad(
  browser: Browser,
  page: Page,
  url: string,
  done: () => Promise<unknown>,
): Promise<LoadProfile> {
  await browser.startTracing(page, { categories: CATEGORIES.split(',') })
  await page.goto(url)
  await done()
  const buffer = await browser.stopTracing()
  const events = (JSON.parse(buffer.toString()) as { traceEvents: TraceEvent[] }).traceEvents
  const main = events.find((event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain')
  const onMain = events.filter((event) => main && event.pid === main.pid && event.tid === main.tid)
  const work = new Map<string, number>()
  for (const event of onMain)
    if (event.ph === 'X' && WORK.includes(event.name))
      work.set(event.name, (work.get(event.name) ?? 0) + (event.dur ?? 0) / 1000)
  return { work: top(work, WORK.length), functions: top(selfTimes(events), 12) }
}

/** Self time per function from the trace's CPU profile chunks (the samples' time deltas). */
function selfTimes(events: TraceEvent[]): Map<string, number> {
  const nodes = new Map<number, CpuProfileNode>()
  const byFunction = new Map<string, number>()
  for (const event of events) {
    if (event.name !== 'ProfileChunk') continue
    const chunk = event.args?.data
    for (const node of chunk?.cpuProfile?.nodes ?? []) nodes.set(node.id, node)
    const samples = chunk?.cpuProfile?.samples ?? []
    const deltas = chunk?.timeDeltas ?? []
    samples.forEach((id, index) => {
      const frame = nodes.get(id)?.callFrame
      if (!frame || frame.functionName === '(idle)') return
      const file = frame.url?.split('/').pop() ?? ''
      const name = `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`
      // A sample's delta is the time since the previous one: it is charged to this sample's function.
      byFunction.set(name, (byFunction.get(name) ?? 0) + Math.max(0, deltas[index] ?? 0) / 1000)
    })
  }
  return byFunction
}

function top(totals: Map<string, number>, count: number): [string, number][] {
  return [...totals]
    .filter(([, ms]) => ms >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => [name, Math.round(ms)])
}
