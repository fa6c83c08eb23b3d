import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'

/**
 * Another process (a runner sharing the file) in a transaction holding the write lock of the SQLite
 * store at `url` until released.
 */
export async function writeLockHeldElsewhere(url: string) {
  const path = url.replace(/^sqlite:/, '')
  const holder = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      '--input-type=module',
      '-e',
      `import { DatabaseSync } from 'node:sqlite'
      const db = new DatabaseSync(${JSON.stringify(path)})
      db.exec('begin immediate')
      console.log('held')
      process.stdin.on('end', () => { db.exec('rollback'); db.close() })
      process.stdin.resume()`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const exited = once(holder, 'exit')
  const [line] = await once(holder.stdout, 'data')
  assert.equal(String(line).trim(), 'held')
  return {
    async release() {
      holder.stdin.end()
      const [code] = await exited
      assert.equal(code, 0)
    },
  }
}
