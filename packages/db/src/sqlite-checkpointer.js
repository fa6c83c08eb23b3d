import { DatabaseSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'

/**
 * Runs in a worker thread beside the store's connection: copies the write-ahead log into the database
 * file now and then. A checkpoint ends in an fsync, which on the main thread (node:sqlite is
 * synchronous) froze the event loop for milliseconds every few hundred commits.
 *
 * Plain JavaScript on purpose: a TypeScript entry makes the worker load Node's type stripping, ~9 MB
 * more memory for these few lines.
 */
const { path, intervalMs } = workerData
const database = new DatabaseSync(path)
database.exec('PRAGMA busy_timeout = 1000')
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)')
const timer = setInterval(() => {
  try {
    checkpoint.get()
  } catch {
    // Busy or locked for a moment: the next tick tries again; the store's own fallback bounds the log.
  }
}, intervalMs)
parentPort?.on('message', (message) => {
  if (message !== 'close') return
  clearInterval(timer)
  database.close()
  parentPort?.close()
})
