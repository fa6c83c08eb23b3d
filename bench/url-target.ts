import { spawn } from 'node:child_process'
import { Client } from 'undici'
import { freePort } from '../packages/server/src/testing/server-process.ts'

/**
 * The target of the URL-check benches: a bare Fastify route answering `ok` at /health, in its own
 * process as a monitored site would be. It is killed when the bench exits, even by a throw.
 */
export async function startUrlTarget(): Promise<{
  origin: string
  url: string
  pid: number
  stop: () => void
}> {
  const port = await freePort()
  const child = spawn(process.execPath, ['bench/bare-server.ts'], {
    env: { ...process.env, PORT: String(port), ROUTE: '/health', CONTENT_TYPE: 'text/plain' },
  })
  const stop = () => child.kill()
  process.on('exit', stop)
  child.stdin.end('ok')
  await new Promise<void>((ready) => child.stdout.once('data', () => ready()))
  const origin = `http://127.0.0.1:${port}`
  return { origin, url: `${origin}/health`, pid: child.pid ?? 0, stop }
}

/** What the bare loop hands `client.destroy`, as runHttpCheck does (a stack trace per request would be a third of its cost). */
const REQUEST_OVER = new Error('The request is over')

/** One request of the ceiling the runner benches measure against: undici on a fresh connection. */
export async function bareRequest(origin: string): Promise<void> {
  const client = new Client(origin)
  try {
    const response = await client.request({ method: 'GET', path: '/health' })
    await response.body.arrayBuffer()
    if (response.statusCode !== 200) throw new Error(`the target answered ${response.statusCode}`)
  } finally {
    await client.destroy(REQUEST_OVER)
  }
}

/** Runs `task` `count` times with `concurrency` in flight. */
export async function inParallel(
  count: number,
  concurrency: number,
  task: () => Promise<void>,
): Promise<void> {
  let started = 0
  const worker = async () => {
    while (started < count) {
      started++
      await task()
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker))
}
