/**
 * bench/spread-floor.ts: the floor of bench:spread-load's ratios, in a process of its own. It runs svc's
 * URL check (`runHttpCheck`, a fresh connection per check) and nothing else: no store, scheduler or
 * server. First at saturation (20 in flight, as bench:runner runs them), then as N 1-minute checks spread
 * over the minute on the scheduler's slots (slots.ts, on the grain it settles on: slot-grain.ts), each
 * on its own timer. It prints the process's CPU per check (all threads) both ways as one JSON line: the
 * spread figure over the saturated one is what spreading costs the check itself, whatever svc does
 * around it.
 * Usage (bench/spread-load.ts starts it): node bench/spread-floor.ts --origin http://… --checks 200
 *   --window-ms 120000 --warmup-ms 65000 --saturated-checks 3000
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { runHttpCheck } from '@svc/runner'
import { slotGrainFor, WHOLE_SECOND_MS } from '../packages/server/src/runs/slot-grain.ts'
import { stableOffsetMs } from '../packages/server/src/runs/slots.ts'
import { floorJob } from './runner-floor-job.ts'
import { inParallel } from './url-target.ts'

const { values } = parseArgs({
  options: {
    origin: { type: 'string' },
    checks: { type: 'string', default: '200' },
    'window-ms': { type: 'string', default: '120000' },
    'warmup-ms': { type: 'string', default: '65000' },
    'saturated-checks': { type: 'string', default: '3000' },
  },
})
if (!values.origin) throw new Error('--origin is required')
const job = floorJob(values.origin)
const MINUTE = 60_000
const SATURATED_CONCURRENCY = 20

const checkOnce = async () => {
  const result = await runHttpCheck(job, { now: () => new Date() })
  if (result.hasFailures) throw new Error(`the floor's check failed: ${result.error?.message}`)
}

/** CPU microseconds of this process so far, every thread. */
const cpuMicros = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}

const saturatedChecks = Number(values['saturated-checks'])
// The first thousands run slower while V8 compiles them, as in bench:runner-floor.
await inParallel(saturatedChecks, SATURATED_CONCURRENCY, checkOnce)
const saturatedStart = cpuMicros()
await inParallel(saturatedChecks, SATURATED_CONCURRENCY, checkOnce)
const saturatedMicros = (cpuMicros() - saturatedStart) / saturatedChecks

const spreadMicros = await spread(
  Number(values.checks),
  Number(values['warmup-ms']),
  Number(values['window-ms']),
)
console.log(JSON.stringify({ saturatedMicros, spreadMicros }))

/** N checks each on a 1-minute timer at the scheduler's offsets; CPU per check run over the window after warm-up. */
async function spread(checks: number, warmupMs: number, windowMs: number): Promise<number> {
  let run = 0
  let stopped = false
  const timers: NodeJS.Timeout[] = []
  const startedMs = performance.now()
  // The grain the server's scheduler settles on for this many checks at its default concurrency.
  const grainMs = slotGrainFor(WHOLE_SECOND_MS, checks, SATURATED_CONCURRENCY)
  for (let i = 0; i < checks; i++) {
    let dueMs = startedMs + stableOffsetMs(`floor-check-${i}`, MINUTE, grainMs)
    const next = () => {
      timers[i] = setTimeout(
        () => {
          if (stopped) return
          dueMs += MINUTE
          next()
          void checkOnce().then(() => run++)
        },
        Math.max(0, dueMs - performance.now()),
      )
    }
    next()
  }
  await sleep(warmupMs)
  const runBefore = run
  const cpuBefore = cpuMicros()
  await sleep(windowMs)
  const micros = (cpuMicros() - cpuBefore) / (run - runBefore)
  stopped = true
  for (const timer of timers) clearTimeout(timer)
  return micros
}
