import { readFileSync } from 'node:fs'
import { Pool } from 'undici'

export interface LoadResult {
  requests: number
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  non2xx: number
  /** CPU time of `serverPid` during the measured part, when asked for. */
  serverCpuMs?: number
}

/**
 * Keeps `connections` keep-alive requests in flight for `seconds`, recording each latency, after the
 * same load for `warmupSeconds` that is not counted (the server's JIT and caches warm up, so a short
 * run measures the steady state). With `serverPid`, also the CPU time that process used while measured.
 */
export async function runLoad(options: {
  origin: string
  /** A fixed path, or one chosen per request. */
  path: string | (() => string)
  seconds: number
  connections: number
  headers: () => Record<string, string>
  warmupSeconds?: number
  serverPid?: number
}): Promise<LoadResult> {
  const pool = new Pool(options.origin, { connections: options.connections, pipelining: 1 })
  const pathOf = typeof options.path === 'string' ? () => options.path as string : options.path
  const load = async (seconds: number) => {
    const latencies: number[] = []
    let non2xx = 0
    const deadline = performance.now() + seconds * 1000
    const worker = async () => {
      while (performance.now() < deadline) {
        const started = performance.now()
        const res = await pool.request({ method: 'GET', path: pathOf(), headers: options.headers() })
        await res.body.arrayBuffer()
        latencies.push(performance.now() - started)
        if (res.statusCode < 200 || res.statusCode > 299) non2xx++
      }
    }
    await Promise.all(Array.from({ length: options.connections }, worker))
    return { latencies, non2xx }
  }
  await load(options.warmupSeconds ?? WARMUP_SECONDS)
  const cpuBefore = options.serverPid ? cpuMsOf(options.serverPid) : 0
  const started = performance.now()
  const { latencies, non2xx } = await load(options.seconds)
  const elapsed = (performance.now() - started) / 1000
  const serverCpuMs = options.serverPid ? cpuMsOf(options.serverPid) - cpuBefore : undefined
  await pool.close()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    non2xx,
    serverCpuMs,
  }
}

const WARMUP_SECONDS = 1

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND
}

/** USER_HZ, which is 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100
