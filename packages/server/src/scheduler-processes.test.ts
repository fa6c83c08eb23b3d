import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createDb } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { COARSEST_GRAIN_MS } from './runs/slot-grain.ts'
import { pidOfClient } from './testing/client-pid.ts'
import { deploymentEnv, type ServerProcess, startServerProcess } from './testing/server-process.ts'

const CHECKS = 30
const PERIOD_MS = 60_000
/** Every check has run two slots by two periods after it was made: the servers stop then. */
const SLOTS = 2
/**
 * Checks whose first slot is further off are deleted at once and made again (a check's offset in its
 * period comes from its id): the last second slot comes ~90 s after the start, not up to ~120 s.
 */
const FIRST_SLOT_WITHIN_MS = 30_000
/**
 * A minute after its start, a quiet server plans slots on a coarser grain (runs/slot-grain.ts): a check's
 * next slot comes earlier by under that grain, once.
 */
const isNextSlot = (gapMs: number) =>
  gapMs <= PERIOD_MS && gapMs > PERIOD_MS - COARSEST_GRAIN_MS && gapMs % 1000 === 0
// Real processes on the system clock: a bound, should a check never reach its second slot.
const RUN_MS = 150_000

/**
 * Two server processes on one store, ~30 one-minute URL checks, real time: every slot runs exactly
 * once (the target is hit once per stored result), no slot is skipped, and both processes take slots.
 * The engines run side by side so the file takes one run's time.
 */
describe('two server processes share one schedule', { concurrency: true }, () => {
  for (const engine of testEngines()) {
    test(`on ${engine.engine}: each due slot runs exactly once, none skipped, on both processes`, async (t) => {
      const store = await engine.createUrl()
      const env = deploymentEnv(store.url)
      const servers: ServerProcess[] = []
      const target = await startTarget(() => servers.map((s) => s.child.pid ?? -1))
      try {
        servers.push(await startServerProcess(env), await startServerProcess(env))
        const checks: { id: string; n: number; createdAt: string }[] = []
        const headers = {
          authorization: `Bearer ${env.SVC_BOOTSTRAP_API_KEY}`,
          'content-type': 'application/json',
        }
        const schedule = createDb(store.url)
        try {
          for (let n = 0; checks.length < CHECKS; n++) {
            const server = servers[n % 2] as ServerProcess
            const response = await fetch(`${server.url}/v1/checks/url`, {
              method: 'POST',
              headers,
              body: JSON.stringify({
                name: `slot ${n}`,
                frequency: 1,
                request: { url: `${target.url}/${n}` },
              }),
            })
            assert.equal(response.status, 201, await response.clone().text())
            const check = (await response.json()) as { id: string; created_at: string }
            const { next_due_ms } = await schedule.db
              .selectFrom('check_schedules')
              .select('next_due_ms')
              .where('check_id', '=', check.id)
              .executeTakeFirstOrThrow()
            if (Number(next_due_ms) - Date.parse(check.created_at) > FIRST_SLOT_WITHIN_MS) {
              const deleted = await fetch(`${server.url}/v1/checks/${check.id}`, {
                method: 'DELETE',
                headers: { authorization: headers.authorization },
              })
              assert.equal(deleted.status, 204, await deleted.text())
              continue
            }
            checks.push({ id: check.id, n, createdAt: check.created_at })
          }
        } finally {
          await schedule.close()
        }
        // Until every check has reached its second slot (about two periods; their offsets differ).
        const givenUpAt = Date.now() + RUN_MS
        while (checks.some((check) => target.hitsOf(check.n) < SLOTS) && Date.now() < givenUpAt)
          await sleep(200)
        const exits = await Promise.all(servers.map((s) => s.stop('SIGTERM')))
        const outputs = servers.map((s) => s.output()).join('\n---\n')
        assert.deepEqual(exits, [0, 0], outputs)

        const reader = createDb(store.url)
        try {
          const results = await reader.db
            .selectFrom('check_results')
            .select(['check_id', 'job_id', 'run_location', 'started_at', 'has_failures'])
            .execute()
          const schedule = await reader.db.selectFrom('check_schedules').selectAll().execute()
          let ran = 0
          for (const check of checks) {
            const mine = results.filter((r) => r.check_id === check.id)
            const slots = mine
              .map((r) => {
                const [due, checkId, location] = r.job_id.split(':')
                assert.equal(checkId, check.id)
                assert.equal(location, 'local')
                assert.equal(r.run_location, 'local')
                assert.equal(Boolean(r.has_failures), false)
                assert.ok(Date.parse(r.started_at) >= Number(due), 'no slot starts before it is due')
                return Number(due)
              })
              .sort((a, b) => a - b)
            assert.equal(new Set(slots).size, slots.length)
            assert.ok(slots.length >= SLOTS, `check ${check.n} ran ${slots.length} slots in ${RUN_MS} ms`)
            assert.equal(
              target.hitsOf(check.n),
              slots.length,
              `check ${check.n}: one target hit per stored result, so no slot ran twice`,
            )
            assert.ok((slots[0] ?? 0) > Date.parse(check.createdAt), 'the first slot follows creation')
            const gaps = [...slots, Number(schedule.find((s) => s.check_id === check.id)?.next_due_ms)]
              .slice(1)
              .map((due, i) => due - (slots[i] ?? 0))
            assert.deepEqual(
              gaps.filter((gap) => !isNextSlot(gap)),
              [],
              `check ${check.n}: each slot (and the schedule's next) is a period after the last, or a new grain's slot`,
            )
            assert.ok(
              gaps.filter((gap) => gap !== PERIOD_MS).length <= 1,
              `check ${check.n}: its slot moved once at most: ${gaps}`,
            )
            ran += slots.length
          }
          assert.equal(results.length, ran, 'no results of other slots')
          const [first, second] = servers.map((s) => target.hitsByPid.get(s.child.pid ?? -1) ?? 0)
          t.diagnostic(`slots run per process: ${first}, ${second} of ${ran}`)
          assert.equal(target.unattributed, 0)
          assert.equal((first ?? 0) + (second ?? 0), ran)
          assert.ok((first ?? 0) > 0 && (second ?? 0) > 0, `slots per process: ${first}, ${second}`)
        } finally {
          await reader.close()
        }
      } finally {
        await Promise.all(servers.map((s) => s.stop('SIGKILL')))
        target.server.close()
        await store.dispose()
      }
    })
  }
})

/**
 * A loopback target that counts hits per path and per server process. The results don't say which
 * node ran a slot, so each hit's client socket is found in /proc/net/tcp and traced to the process
 * holding it (the client waits for our answer, so its socket is still open while we look).
 */
async function startTarget(pids: () => number[]) {
  const hitsByPath = new Map<string, number>()
  const hitsByPid = new Map<number, number>()
  let unattributed = 0
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/'
    hitsByPath.set(path, (hitsByPath.get(path) ?? 0) + 1)
    const pid = pidOfClient(request.socket.remotePort ?? 0, port, pids())
    if (pid === undefined) unattributed++
    else hitsByPid.set(pid, (hitsByPid.get(pid) ?? 0) + 1)
    response.end('ok')
  })
  const { port } = await listenOnLoopback(server)
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    hitsByPid,
    hitsOf: (n: number) => hitsByPath.get(`/${n}`) ?? 0,
    get unattributed() {
      return unattributed
    },
  }
}
