/**
 * bench/deploy.ts: a monitoring-as-code project of 1,000 API checks in 20 groups, deployed from empty,
 * redeployed unchanged, and redeployed with 10 checks changed, as the hosted CLI sends it (gzip body,
 * then the completion long-poll). Prints each deploy's time from POST to the deployment's end and the
 * server process's peak RSS during it. Targets: first deploy < 10 s, unchanged < 2 s, RSS < 400 MB.
 * While each deploy runs, a client sends `GET /v1/checks?limit=100` one after another and the p99 of their
 * latencies is printed against the same requests sent with no deploy running (measured in the same run,
 * with the project's checks stored): how much a deploy blocks the API. The same is done for `GET /`, which
 * reads the store too (it looks the Host header up among the status pages' custom domains), and for
 * `GET /checks` as a browser asks for it (the dashboard's index.html, from a file: no store), sent one
 * right after another (no rate limit applies): its longest wait is the longest the deploy held the
 * server's event loop itself.
 * During the first deploy a reader also sends `GET /v1/checks?limit=1` every 50 ms on a clock, whether or not
 * the last one answered (its own key, so the API's per-key limit doesn't slow it): its longest wait and p99
 * are how long a read stalls behind the deploy's transaction.
 * Usage: npm run bench:deploy [-- --checks 1000] (SQLite; DATABASE_URL=postgres://... for PostgreSQL).
 */

import { setTimeout } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { startServerProcess } from '../packages/server/src/testing/server-process.ts'
import { rssMb } from './proc.ts'
import { benchEngine, benchStore } from './store.ts'

const { values } = parseArgs({
  options: { checks: { type: 'string', default: '1000' }, groups: { type: 'string', default: '20' } },
})
const CHECKS = Number(values.checks)
const GROUPS = Number(values.groups)
const TARGETS = { first: 10_000, unchanged: 2_000, rssMb: 400 }

/** The project; checks below `changed` carry a second name. */
function project(changed: number) {
  const groups = Array.from({ length: GROUPS }, (_, g) => ({
    logicalId: `group-${g}`,
    type: 'check-group',
    member: true,
    payload: {
      name: `Group ${g}`,
      activated: true,
      tags: [`team-${g}`],
      locations: ['local'],
      concurrency: 3,
    },
  }))
  const checks = Array.from({ length: CHECKS }, (_, c) => ({
    logicalId: `check-${c}`,
    type: 'check',
    member: true,
    payload: {
      checkType: 'API',
      name: c < changed ? `Check ${c} renamed` : `Check ${c}`,
      activated: true,
      muted: false,
      locations: ['local'],
      frequency: 10,
      tags: ['bench'],
      groupId: { ref: `group-${c % GROUPS}` },
      request: {
        method: 'GET',
        url: `http://127.0.0.1:9/health/${c}`,
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '' }],
      },
    },
  }))
  return { project: { logicalId: 'bench', name: 'Bench project' }, resources: [...groups, ...checks] }
}

const store = await benchStore()
// No runner: the checks are scheduled as deployed but never run, so only the deploy is measured.
// The reader's 20 requests a second and the probes share one account: lift its limit (the keys keep theirs).
const server = await startServerProcess({
  ...store.env,
  SVC_RUNNER_LOCATIONS: 'none',
  SVC_ACCOUNT_RATE_LIMIT: '100000',
})
const auth = { authorization: `Bearer ${server.apiKey}` }
const readerAuth = { authorization: `Bearer ${await secondKey()}` }

/** A second key of the bench's user, for the clocked reader. */
async function secondKey(): Promise<string> {
  const res = await fetch(`${server.url}/v1/api-keys`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench reader' }),
  })
  if (res.status !== 201) throw new Error(`creating the reader's key answered ${res.status}`)
  return ((await res.json()) as { key: string }).key
}

/** The clocked reader's period: 1,200 requests a minute, twice what one key may send, so it has its own. */
const READER_PERIOD_MS = 50

/**
 * Sends `GET /v1/checks?limit=1` every READER_PERIOD_MS until `stop()`, not waiting for earlier answers,
 * so a stalled read doesn't hide the ones behind it; answers each latency.
 */
function clockedReader() {
  const pending: Promise<number>[] = []
  const read = async () => {
    const started = performance.now()
    const res = await fetch(`${server.url}/v1/checks?limit=1`, { headers: readerAuth })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`GET /v1/checks?limit=1 answered ${res.status}`)
    return performance.now() - started
  }
  const timer = setInterval(() => pending.push(read()), READER_PERIOD_MS)
  return {
    stop: () => {
      clearInterval(timer)
      return Promise.all(pending)
    },
  }
}

/** A dashboard page as a browser asks for it: its index.html, read from a file, with no store involved. */
const STORE_FREE_PAGE = '/checks'

/** A key's requests per minute stay under the API's 600: one read at most every 200 ms. */
const READ_SPACING_MS = 200

/** Sends `GET path` one at a time until `stop()` (or `count` requests); answers each latency. */
function probe(count = Number.POSITIVE_INFINITY, path = '/v1/checks?limit=100') {
  // Only the API counts against the key's rate limit: the pages go without it, one right after another.
  const rateLimited = path.startsWith('/v1/')
  const headers = rateLimited ? auth : { accept: 'text/html' }
  const latencies: number[] = []
  let stopped = false
  const done = (async () => {
    while (!stopped && latencies.length < count) {
      const started = performance.now()
      const res = await fetch(`${server.url}${path}`, { headers })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`)
      const took = performance.now() - started
      latencies.push(took)
      if (rateLimited && took < READ_SPACING_MS) await setTimeout(READ_SPACING_MS - took)
    }
    return latencies
  })()
  return {
    done,
    stop: () => {
      stopped = true
      return done
    },
  }
}

function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN
}

async function deploy(changed: number, withReader = false) {
  const body = gzipSync(JSON.stringify(project(changed)))
  const pid = server.child.pid as number
  let peak = rssMb(pid)
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid))
  }, 25)
  const reads = probe()
  const pages = probe(Number.POSITIVE_INFINITY, '/')
  const files = probe(Number.POSITIVE_INFINITY, STORE_FREE_PAGE)
  const reader = withReader ? clockedReader() : undefined
  const started = performance.now()
  const res = await fetch(`${server.url}/v1/projects/deploy?scheduleOnDeploy=false`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body,
  })
  if (res.status !== 202) throw new Error(`deploy answered ${res.status}: ${await res.text()}`)
  const { id } = (await res.json()) as { id: string }
  let deployment: { status: string; result: { diff: { action: string }[] } | null; error: unknown }
  for (;;) {
    const url = `${server.url}/v1/projects/bench/deployments/${id}/completion?maxWaitSeconds=30`
    const done = await fetch(url, { headers: auth })
    if (done.status === 408) continue
    deployment = (await done.json()) as typeof deployment
    break
  }
  const ms = performance.now() - started
  clearInterval(sampler)
  const latencies = await reads.stop()
  const pageLatencies = await pages.stop()
  const fileLatencies = await files.stop()
  const readerLatencies = (await reader?.stop()) ?? []
  if (deployment.status !== 'SUCCEEDED') throw new Error(`deployment ${JSON.stringify(deployment)}`)
  const actions: Record<string, number> = {}
  for (const entry of deployment.result?.diff ?? []) actions[entry.action] = (actions[entry.action] ?? 0) + 1
  const gzipKb = body.length / 1024
  return {
    ms,
    peak,
    actions,
    gzipKb,
    reads: latencies.length,
    p99: p99(latencies),
    pageP99: p99(pageLatencies),
    fileP99: p99(fileLatencies),
    fileMax: Math.max(...fileLatencies),
    files: fileLatencies.length,
    readerLatencies,
  }
}

/**
 * The server compiles a route's schemas and a check type's validator on their first use (issue 31: they
 * took ~20 MB of idle RSS compiled at start). A dry run of the project and a read of each probed path
 * pay that once before anything is measured, so the figures are of deploying, not of first calls.
 */
async function warmUp() {
  const res = await fetch(`${server.url}/v1/projects/deploy?dryRun=true`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(project(0)),
  })
  if (res.status !== 200) throw new Error(`dry run answered ${res.status}: ${await res.text()}`)
  await res.arrayBuffer()
  for (const path of ['/v1/checks?limit=100', '/', STORE_FREE_PAGE]) await probe(1, path).done
}

try {
  console.log(`bench:deploy on ${benchEngine}: ${CHECKS} checks in ${GROUPS} groups`)
  await warmUp()
  const first = await deploy(0, true)
  // The baseline: the same reads with the project's checks stored and no deploy running.
  const idle = await probe(100).done
  const idleP99 = p99(idle)
  const idlePageP99 = p99(await probe(100, '/').done)
  const idleFileP99 = p99(await probe(100, STORE_FREE_PAGE).done)
  const rows = [
    ['from empty', first, TARGETS.first],
    ['unchanged', await deploy(0), TARGETS.unchanged],
    ['10 changed', await deploy(10), undefined],
  ] as const
  console.log(
    `GET /v1/checks with no deploy running: p99 ${idleP99.toFixed(1)} ms over ${idle.length} requests; ` +
      `GET /: p99 ${idlePageP99.toFixed(1)} ms; GET ${STORE_FREE_PAGE}: p99 ${idleFileP99.toFixed(1)} ms`,
  )
  const clocked = first.readerLatencies
  console.log(
    `GET /v1/checks?limit=1 every ${READER_PERIOD_MS} ms during the first deploy: longest ` +
      `${Math.max(...clocked).toFixed(0)} ms, p99 ${p99(clocked).toFixed(0)} ms over ${clocked.length} reads`,
  )
  for (const [name, run, target] of rows) {
    const met =
      target === undefined ? '' : run.ms < target ? ' (target met)' : ` (target < ${target} ms: NOT met)`
    console.log(
      `${name.padEnd(11)} ${run.ms.toFixed(0).padStart(6)} ms${met}; peak RSS ${run.peak.toFixed(0)} MB` +
        `${run.peak < TARGETS.rssMb ? '' : ` (target < ${TARGETS.rssMb} MB: NOT met)`}; ` +
        `body ${run.gzipKb.toFixed(0)} KiB gzipped; ${JSON.stringify(run.actions)}; ` +
        `GET /v1/checks during it: p99 ${run.p99.toFixed(1)} ms over ${run.reads} requests ` +
        `(${(run.p99 / idleP99).toFixed(1)}x the idle p99); GET /: p99 ${run.pageP99.toFixed(1)} ms ` +
        `(${(run.pageP99 / idlePageP99).toFixed(1)}x); GET ${STORE_FREE_PAGE}: p99 ${run.fileP99.toFixed(1)} ms ` +
        `(${(run.fileP99 / idleFileP99).toFixed(1)}x), longest ${run.fileMax.toFixed(0)} ms over ${run.files} requests`,
    )
  }
} finally {
  await server.stop()
  await store.dispose()
}
