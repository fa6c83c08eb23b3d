/**
 * A worker thread of bench:runner-floor's `--http-threads` variant: runs the URL checks the main thread
 * hands it and posts their results back, those that end in one turn of its event loop together.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { type HttpRunResult, runHttpCheck } from '@svc/runner'
import { floorJob } from './runner-floor-job.ts'

const port = parentPort
if (port === null) throw new Error('runner-floor-worker.ts runs only as a worker thread')
const job = floorJob(String(workerData.origin))
let finished: { ticket: number; result: HttpRunResult }[] = []
const postFinished = () => {
  port.postMessage(finished)
  finished = []
}
port.on('message', (tickets: number[]) => {
  for (const ticket of tickets) {
    runHttpCheck(job, { now: () => new Date() }).then((result) => {
      if (finished.push({ ticket, result }) === 1) setImmediate(postFinished)
    })
  }
})
