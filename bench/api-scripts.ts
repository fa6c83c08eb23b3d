/**
 * bench/api-scripts.ts: what setup and teardown scripts cost an API check run. The same API check run
 * (runJob, as a server or agent runs it) against a local target three ways in interleaved rounds:
 * without scripts (no process starts), with a setup and a teardown script in the sandbox, and with
 * them without the sandbox (SVC_SCRIPT_SANDBOX=off). Prints each way's median ms per run and its
 * ratio to the run without scripts, and the load average (the machine is shared).
 * Usage: npm run bench:api-scripts [-- --runs 20 --rounds 3]
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import type { ApiScripts } from '@svc/core'
import { PlaywrightPool, runJob } from '@svc/runner'
import { startUrlTarget } from './url-target.ts'

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '20' }, rounds: { type: 'string', default: '3' } },
})
const runs = Number(values.runs)
const rounds = Number(values.rounds)

const target = await startUrlTarget()
const scripts: ApiScripts = {
  setup: [{ name: 'localSetupScript', source: "request.headers['x-token'] = process.env.TOKEN" }],
  tearDown: [{ name: 'localTearDownScript', source: "response.body = response.body.replace('ok', 'fine')" }],
  environment: { TOKEN: 'bench' },
}
const definition = (withScripts: boolean) => ({
  request: { url: target.url, method: 'GET', assertions: [] },
  degradedResponseTime: 10_000,
  maxResponseTime: 20_000,
  shouldFail: false,
  ...(withScripts ? { scripts } : {}),
})
const sandboxed = new PlaywrightPool({ sandbox: 'auto' })
const plain = new PlaywrightPool({ sandbox: 'off' })
const status = await sandboxed.start()
await plain.start()

const ways = {
  'no scripts': { pool: sandboxed, withScripts: false },
  [`scripts, ${status.sandboxed ? 'sandboxed' : `NOT sandboxed (${status.problem})`}`]: {
    pool: sandboxed,
    withScripts: true,
  },
  'scripts, sandbox off': { pool: plain, withScripts: true },
}
const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((way) => [way, []]))

for (let round = 0; round < rounds; round++) {
  for (const [way, { pool, withScripts }] of Object.entries(ways)) {
    const started = performance.now()
    for (let n = 0; n < runs; n++) {
      const outcome = await runJob(
        { checkType: 'API', definition: definition(withScripts) },
        { now: () => new Date(), playwright: pool },
      )
      if (outcome.verdict.hasFailures) throw new Error(`${way}: ${JSON.stringify(outcome.verdict.error)}`)
    }
    times[way]?.push((performance.now() - started) / runs)
  }
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0
const base = median(times['no scripts'] ?? [])
console.log(
  `load average ${loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')}; ${runs} runs x ${rounds} rounds`,
)
for (const [way, list] of Object.entries(times)) {
  const ms = median(list)
  console.log(`${way.padEnd(36)} ${ms.toFixed(1).padStart(8)} ms/run  ${(ms / base).toFixed(1)}x`)
}
await sandboxed.close()
await plain.close()
target.stop()
