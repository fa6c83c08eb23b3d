/**
 * bench/api.ts: authenticated GET /v1/variables (50 variables) through svc versus a bare Fastify route
 * returning the same JSON, measured the same way in one run; plus idle RSS and start-up time.
 * Targets: throughput ratio >= 0.5, idle RSS < 120 MB, start to first answer < 1.5 s.
 * Usage: npm run bench:api [-- --seconds 5] (SQLite; DATABASE_URL=postgres://... for PostgreSQL).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { freePort, startServerProcess } from '../packages/server/src/testing/server-process.ts'
import { runLoad } from './load.ts'
import { rssMb } from './proc.ts'
import { benchEngine, benchStore } from './store.ts'

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' } },
})
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const adminToken = randomBytes(16).toString('hex')

const spawnedAt = performance.now()
const store = await benchStore()
// The per-key limit is paid for real (each request counts against its key); the account's limit and the
// keys one user may hold are raised so that 300 keys can carry the load.
const server = await startServerProcess({
  ...store.env,
  SVC_ADMIN_TOKEN: adminToken,
  SVC_ACCOUNT_RATE_LIMIT: '10000000',
  SVC_MAX_KEYS_PER_USER: '300',
})
const firstAnswerMs = await timeToFirstAnswer(server.url, spawnedAt)
await sleep(1000)
const idleRssMb = rssMb(server.child.pid ?? 0)

// Every request is counted against its key's limit; rotating keys keeps the run under 600/min per key.
const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }
const owner = await postJson(`${server.url}/admin/v1/users`, admin, {
  email: 'bench@example.com',
  name: 'Bench',
})
await postJson(`${server.url}/admin/v1/memberships`, admin, {
  userId: owner.id,
  accountId: server.accountId,
  role: 'OWNER',
})
const keys: string[] = []
for (let i = 0; i < 300; i++) {
  const created = await postJson(`${server.url}/admin/v1/api-keys`, admin, {
    name: `k${i}`,
    userId: owner.id,
  })
  keys.push(String(created.key))
}
const userHeaders = { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' }
for (let i = 0; i < 50; i++) {
  await postJson(`${server.url}/v1/variables`, userHeaders, {
    key: `VARIABLE_${String(i).padStart(2, '0')}`,
    value: `value-${i}-${'x'.repeat(40)}`,
    locked: i % 10 === 0,
    description: 'seeded by bench/api.ts',
  })
}
const body = await (await fetch(`${server.url}/v1/variables?limit=50`, { headers: userHeaders })).text()

let next = 0
const svc = await runLoad({
  origin: server.url,
  path: '/v1/variables?limit=50',
  seconds,
  connections,
  headers: () => ({ authorization: `Bearer ${keys[next++ % keys.length]}` }),
})
const loadedRssMb = rssMb(server.child.pid ?? 0)
await server.stop('SIGTERM')
await store.dispose()

const barePort = await freePort()
const bare = spawn(process.execPath, ['bench/bare-server.ts'], {
  env: { ...process.env, PORT: String(barePort) },
})
bare.stdin.end(body)
await new Promise<void>((ready) => bare.stdout.once('data', () => ready()))
const ceiling = await runLoad({
  origin: `http://127.0.0.1:${barePort}`,
  path: '/v1/variables',
  seconds,
  connections,
  headers: () => ({}),
})
bare.kill()

const ratio = svc.requestsPerSecond / ceiling.requestsPerSecond
const row = (name: string, r: typeof svc) =>
  `${name.padEnd(28)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${r.p50Ms.toFixed(2)} ms   p99 ${r.p99Ms.toFixed(2)} ms   non-2xx ${r.non2xx}`
console.log(`store: ${benchEngine}, ${seconds} s per run after 1 s of warm-up, ${connections} connections`)
console.log(row('svc GET /v1/variables (50)', svc))
console.log(row('bare Fastify, same JSON', ceiling))
console.log(`throughput ratio svc/bare      ${ratio.toFixed(2)}   (target >= 0.5)`)
console.log(`p99 ratio svc/bare             ${(svc.p99Ms / ceiling.p99Ms).toFixed(2)}`)
console.log(`idle RSS after start           ${idleRssMb.toFixed(1)} MB   (target < 120 MB)`)
console.log(`RSS after the load             ${loadedRssMb.toFixed(1)} MB`)
console.log(`start to first answer          ${firstAnswerMs.toFixed(0)} ms   (target < 1500 ms)`)

async function timeToFirstAnswer(url: string, since: number): Promise<number> {
  for (;;) {
    const res = await fetch(`${url}/openapi.json`).catch(() => undefined)
    if (res?.ok) return performance.now() - since
    await sleep(5)
  }
}

async function postJson(url: string, headers: Record<string, string>, payload: unknown) {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(payload) })
  if (res.status !== 201) throw new Error(`${url} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as Record<string, string>
}

function sleep(ms: number) {
  return new Promise((done) => setTimeout(done, ms))
}
