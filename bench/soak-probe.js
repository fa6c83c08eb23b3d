/**
 * Preloaded into the soak's server process (SVC_BENCH_NODE_FLAGS=--import …): every SOAK_PROBE_MS it
 * prints its V8 heap and the event loop's delay p99 since the last line, for bench/soak.ts to read.
 * Plain JavaScript, like the compile-cache preload, so that it loads no type stripping of its own.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'

const intervalMs = Number(process.env.SOAK_PROBE_MS) || 10_000
// Preloads run in worker threads too (the SQLite checkpointer): only the server's own thread reports.
if (isMainThread) {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  setInterval(() => {
    const { heapUsed, heapTotal } = process.memoryUsage()
    const line = { heapUsed, heapTotal, loopDelayP99Ms: delay.percentile(99) / 1e6 }
    delay.reset()
    process.stdout.write(`soak-probe ${JSON.stringify(line)}\n`)
  }, intervalMs).unref()
}
