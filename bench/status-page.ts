/**
 * bench/status-page.ts: public status page requests per second and latency for a page with 20 services
 * (each following a check with results) and 50 past incidents, served from the page cache; plus the
 * time to render it anew after a change. Target: >= 2,000 req/s on the 2-core CI machine kind.
 * Usage: npm run bench:status-page [-- --seconds 5] [-- --maintenance] (SQLite; DATABASE_URL=postgres://...
 * for PostgreSQL). --maintenance adds a daily maintenance window over the 90 days covering every check,
 * so the render counts the runs during its occurrences apart.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import { startServerProcess } from '../packages/server/src/testing/server-process.ts'
import { runLoad } from './load.ts'
import { benchEngine, benchStore } from './store.ts'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    maintenance: { type: 'boolean', default: false },
  },
})
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const TARGET_RPS = 2000

const target = createServer((_request, response) => response.end('ok'))
await new Promise<void>((done) => target.listen(0, '127.0.0.1', done))
const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`

const store = await benchStore()
const server = await startServerProcess(store.env)
const api = async (method: string, path: string, payload?: unknown) => {
  const headers: Record<string, string> = { authorization: `Bearer ${server.apiKey}` }
  if (payload) headers['content-type'] = 'application/json'
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: payload ? JSON.stringify(payload) : undefined,
  })
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as Record<string, any>
}

const serviceIds: string[] = []
for (let i = 0; i < 20; i++) {
  const check = await api('POST', '/v1/checks/url', {
    name: `bench check ${i}`,
    // Activated: a deactivated check reports nothing on a page, which would skip the status lookups.
    activated: true,
    frequency: 1440,
    tags: ['bench'],
    request: { url: targetUrl },
  })
  for (let run = 0; run < 2; run++) await api('POST', `/v1/checks/${check.id}/trigger`)
  const service = await api('POST', '/v1/status-pages/services', {
    name: `Service ${String(i + 1).padStart(2, '0')}`,
    description: 'Seeded by bench/status-page.ts',
    checkIds: [check.id],
  })
  serviceIds.push(service.id)
}
const page = await api('POST', '/v3/status-pages', {
  name: 'Bench status',
  url: 'bench',
  description: 'A page with 20 services and 50 past incidents',
  cards: [
    { name: 'Platform', services: serviceIds.slice(0, 10).map((id) => ({ id })) },
    { name: 'Product', services: serviceIds.slice(10).map((id) => ({ id })) },
  ],
})
const DAY = 86_400_000
if (values.maintenance) {
  // Daily for an hour since before the 90 days, ending now: an occurrence every day of the history.
  const start = Date.now() - 91 * DAY
  await api('POST', '/v1/maintenance-windows', {
    name: 'Nightly',
    tags: ['bench'],
    startsAt: new Date(start).toISOString(),
    endsAt: new Date(start + 3_600_000).toISOString(),
    repeatUnit: 'DAY',
    repeatEndsAt: new Date(Date.now() - 2 * 3_600_000).toISOString(),
  })
}
for (let i = 0; i < 50; i++) {
  const start = Date.now() - (i + 1) * 1.7 * DAY
  await api('POST', `/v3/status-pages/${page.id}/incidents`, {
    name: `Past incident ${i + 1}`,
    componentImpacts: [{ componentId: serviceIds[i % 20], status: 'PARTIAL_OUTAGE' }],
    incidentUpdates: [
      {
        description: 'Errors for some requests.',
        status: 'INVESTIGATING',
        publicIncidentUpdateDate: new Date(start).toISOString(),
      },
      {
        description: 'Cause found, fix rolling out.',
        status: 'IDENTIFIED',
        publicIncidentUpdateDate: new Date(start + 20 * 60_000).toISOString(),
      },
      {
        description: 'Fixed.',
        status: 'RESOLVED',
        publicIncidentUpdateDate: new Date(start + 45 * 60_000).toISOString(),
      },
    ],
  })
}

const first = await fetch(`${server.url}/status/bench`)
const html = await first.text()
if (first.status !== 200 || (html.match(/class="incident"/g)?.length ?? 0) !== 50) {
  throw new Error(`unexpected page: ${first.status}, ${html.length} bytes`)
}

// A change drops the cached rendering: the next request renders the page anew.
const renders: number[] = []
for (let i = 0; i < 10; i++) {
  await api('PUT', `/v1/status-pages/services/${serviceIds[0]}`, { name: `Service 01 (${i})` })
  const started = performance.now()
  await (await fetch(`${server.url}/status/bench`)).text()
  renders.push(performance.now() - started)
}
renders.sort((a, b) => a - b)

const load = (headers: Record<string, string>) =>
  runLoad({ origin: server.url, path: '/status/bench', seconds, connections, headers: () => headers })
const plain = await load({})
// Browsers always offer gzip; the page cache holds the gzipped body ready.
const gzip = await load({ 'accept-encoding': 'gzip, deflate, br' })
await server.stop('SIGTERM')
await store.dispose()
target.close()

console.log(
  `store: ${benchEngine}${values.maintenance ? ' (with a daily maintenance window)' : ''}, ${seconds} s per run after 1 s of warm-up, ${connections} connections, page ${(html.length / 1024).toFixed(0)} KiB`,
)
const row = (name: string, r: typeof plain) =>
  `${name.padEnd(44)} ${r.requestsPerSecond.toFixed(0).padStart(6)} req/s   p50 ${r.p50Ms.toFixed(2)} ms   p99 ${r.p99Ms.toFixed(2)} ms   non-2xx ${r.non2xx}   ratio to target ${(r.requestsPerSecond / TARGET_RPS).toFixed(2)}`
console.log(row('GET /status/bench, identity', plain))
console.log(row('GET /status/bench, accept-encoding: gzip', gzip))
console.log(`target: >= ${TARGET_RPS} req/s (ratio >= 1)`)
console.log(`render after a change (median of 10)         ${renders[5]?.toFixed(1)} ms`)
