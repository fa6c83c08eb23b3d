/**
 * bench/heartbeat.ts: heartbeat pings per second against `/ping/{token}` of a real server (each ping
 * stores a result and moves the check's deadline), versus a bare Fastify route answering `OK`, measured
 * the same way in one run. Target: >= 5,000 pings/s.
 * Usage: npm run bench:heartbeat [-- --seconds 5 --connections 32 --checks 100]
 * (SQLite; DATABASE_URL=postgres://... for PostgreSQL).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { freePort, startServerProcess } from '../packages/server/src/testing/server-process.ts'
import { runLoad } from './load.ts'
import { benchEngine, benchStore } from './store.ts'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    checks: { type: 'string', default: '100' },
  },
})
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const apiKey = `svc_${randomBytes(32).toString('base64url')}`

const store = await benchStore()
const server = await startServerProcess({ ...store.env, SVC_BOOTSTRAP_API_KEY: apiKey })
// Pings spread over many heartbeat checks, as many cron jobs would send them.
const tokens: string[] = []
for (let i = 0; i < Number(values.checks); i++) {
  const res = await fetch(`${server.url}/v1/checks/heartbeat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `job ${i}`,
      heartbeat: { period: 1, periodUnit: 'hours', grace: 10, graceUnit: 'minutes' },
    }),
  })
  if (res.status !== 201) throw new Error(`creating a heartbeat answered ${res.status}: ${await res.text()}`)
  const { pingUrl } = (await res.json()) as { pingUrl: string }
  tokens.push(new URL(pingUrl).pathname)
}

let next = 0
const pings = await runLoad({
  origin: server.url,
  path: () => tokens[next++ % tokens.length] as string,
  seconds,
  connections,
  headers: () => ({}),
  serverPid: server.child.pid,
})
const cpuPerPingUs = ((pings.serverCpuMs ?? 0) * 1000) / pings.requests
await server.stop('SIGTERM')
await store.dispose()

const barePort = await freePort()
const bare = spawn(process.execPath, ['bench/bare-server.ts'], {
  env: { ...process.env, PORT: String(barePort), ROUTE: '/ping/:token', CONTENT_TYPE: 'text/plain' },
})
bare.stdin.end('OK')
await new Promise<void>((ready) => bare.stdout.once('data', () => ready()))
const ceiling = await runLoad({
  origin: `http://127.0.0.1:${barePort}`,
  path: () => tokens[next++ % tokens.length] as string,
  seconds,
  connections,
  headers: () => ({}),
})
bare.kill()

const row = (name: string, r: typeof pings) =>
  `${name.padEnd(28)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${r.p50Ms.toFixed(2)} ms   p99 ${r.p99Ms.toFixed(2)} ms   non-2xx ${r.non2xx}`
console.log(
  `store: ${benchEngine}, ${seconds} s per run after 1 s of warm-up, ${connections} connections, ${tokens.length} heartbeat checks`,
)
console.log(row('svc GET /ping/{token}', pings))
console.log(row('bare Fastify, same route', ceiling))
console.log(`server CPU per ping           ${cpuPerPingUs.toFixed(0)} µs`)
console.log(`pings per second              ${pings.requestsPerSecond.toFixed(0)}   (target >= 5000)`)
console.log(
  `ratio svc/bare                 ${(pings.requestsPerSecond / ceiling.requestsPerSecond).toFixed(2)}`,
)
