import { readFileSync } from 'node:fs'
import { Pool } from 'undici'

export interface LoadResult {
  requests: number
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  non2xx: number
}

/** Keeps `connections` keep-alive requests in flight for `seconds`, recording each latency. */
export async function runLoad(options: {
  origin: string
  /** A fixed path, or one chosen per request. */
  path: string | (() => string)
  seconds: number
  connections: number
  headers: () => Record<string, string>
}): Promise<LoadResult> {
  const pool = new Pool(options.origin, { connections: options.connections, pipelining: 1 })
  const latencies: number[] = []
  let non2xx = 0
  const pathOf = typeof options.path === 'string' ? () => options.path as string : options.path
  const deadline = performance.now() + options.seconds * 1000
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now()
      const res = await pool.request({ method: 'GET', path: pathOf(), headers: options.headers() })
      await res.body.arrayBuffer()
      latencies.push(performance.now() - started)
      if (res.statusCode < 200 || res.statusCode > 299) non2xx++
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: options.connections }, worker))
  const elapsed = (performance.now() - started) / 1000
  await pool.close()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    non2xx,
  }
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND
}

/** USER_HZ, which is 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100
