import { DatabaseSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'

/**
 * Runs in a worker thread beside the store's connection: copies the write-ahead log into the database
 * file now and then. A checkpoint ends in an fsync, which on the main thread (node:sqlite is
 * synchronous) froze the event loop for milliseconds every few hundred commits.
 *
 * SQLite starts the log over only when a commit begins with all of it copied. Under steady writes a
 * commit always lands while this copy runs, so the log grew to the store's backstop (~200 MB) and a
 * commit then checkpointed on the main thread after all. So once the log is past `restartPages`, this
 * asks the main thread to hold its statements ('log-long') and, told 'restart', copies the rest, waits
 * for readers to leave the log (RESTART) and starts it over with a commit of its own.
 *
 * Plain JavaScript on purpose: a TypeScript entry makes the worker load Node's type stripping, ~9 MB
 * more memory for these few lines.
 */
const { path, intervalMs, restartPages } = workerData
const LOG_FILE_LIMIT_BYTES = 64 * 2 ** 20
const database = new DatabaseSync(path)
database.exec('PRAGMA busy_timeout = 1000')
// A file a burst left long is cut back to this when the log starts over (the commit doing so is ours).
database.exec(`PRAGMA journal_size_limit = ${LOG_FILE_LIMIT_BYTES}`)
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)')
const restart = database.prepare('PRAGMA wal_checkpoint(RESTART)')
const userVersion = database.prepare('PRAGMA user_version')
const timer = setInterval(() => {
  try {
    const { log } = checkpoint.get()
    if (log >= restartPages) parentPort?.postMessage('log-long')
  } catch {
    // Busy or locked for a moment: the next tick tries again; the store's own fallback bounds the log.
  }
}, intervalMs)
/**
 * The commit that starts the log over writes its header and waits for an fsync of it. Rewriting the
 * unused user_version here makes that commit this thread's, not the main thread's next one.
 */
function startLogOver() {
  database.exec('begin immediate')
  try {
    database.exec(`PRAGMA user_version = ${Number(userVersion.get()?.user_version)}`)
    database.exec('commit')
  } catch (error) {
    database.exec('rollback')
    throw error
  }
}
parentPort?.on('message', (message) => {
  if (message === 'restart') {
    try {
      if (restart.get()?.busy === 0) startLogOver()
    } catch {
      // As above: the main thread is told all the same, so that it stops holding its statements.
    }
    parentPort?.postMessage('restarted')
    return
  }
  if (message !== 'close') return
  clearInterval(timer)
  database.close()
  parentPort?.close()
})
