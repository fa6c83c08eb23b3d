import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { createDb } from './create-db.ts'
import { isStoreBusy } from './errors.ts'
import { openSqlite } from './sqlite.ts'

/** A store in a folder of its own, and a way to remove both. */
function sqliteStore() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'))
  const path = join(dir, 'svc.db')
  const store = createDb(`sqlite:${path}`)
  return { dir, path, store }
}

/** Writes enough at once for the store to count as busy and start its checkpointer thread. */
async function writeBusily(store: ReturnType<typeof createDb>) {
  await sql`create table if not exists busy (n integer not null)`.execute(store.db)
  for (let n = 0; n < 300; n++) await sql`insert into busy (n) values (${n})`.execute(store.db)
}

test('SQLite: an idle store has no checkpointer thread; a busy one starts it', async () => {
  const threadsBefore = threadCount()
  const { dir, store } = sqliteStore()
  try {
    await sql`create table notes (body text not null)`.execute(store.db)
    for (let n = 0; n < 20; n++) await sql`insert into notes (body) values (${'idle'})`.execute(store.db)
    assert.equal(threadCount(), threadsBefore)
    await writeBusily(store)
    assert.equal(threadCount(), threadsBefore + 1)
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('SQLite: the write-ahead log is copied into the database file by the checkpointer thread', async () => {
  const { dir, path, store } = sqliteStore()
  try {
    await writeBusily(store)
    await sql`create table notes (body text not null)`.execute(store.db)
    await sql`insert into notes (body) values (${'written'})`.execute(store.db)
    // An immutable reader ignores the log: it sees only what a checkpoint copied into the file.
    const inFile = () => {
      const reader = new DatabaseSync(`file:${path}?immutable=1`, { readOnly: true })
      try {
        return reader.prepare("select count(*) as n from sqlite_master where name = 'notes'").get()?.n === 1
          ? reader
              .prepare('select body from notes')
              .all()
              .map((row) => ({ ...row }))
          : []
      } finally {
        reader.close()
      }
    }
    assert.deepEqual(inFile(), [], 'commits alone leave the rows in the log')
    let copied: unknown[] = []
    // A liveness wait for the checkpointer's next ticks (one a second), not a time limit: gives up after ~60 s.
    for (let waited = 0; waited < 240 && copied.length === 0; waited++) {
      await sleep(250)
      copied = inFile()
    }
    assert.deepEqual(copied, [{ body: 'written' }])
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('SQLite: under writes without a pause the write-ahead log starts over instead of growing to the backstop', async () => {
  const { dir, path, store } = sqliteStore()
  try {
    await writeBusily(store)
    await sql`create table blobs (body blob not null)`.execute(store.db)
    // Commits ~2 ms apart always land while the checkpointer copies, so the log is never wholly copied
    // when the next one begins: the moment SQLite would start it over by itself. Each start over is
    // seen in the log's header; waited for, not timed. The bound is in bytes, far below the backstop's
    // (~200 MB): the checkpointer asks for a start over past ~4 MB of log.
    const body = new Uint8Array(12_000)
    const first = logStartsOver(`${path}-wal`)
    let commits = 0
    for (; commits < MAX_COMMITS && logStartsOver(`${path}-wal`) < first + 2; commits++) {
      await sql`insert into blobs (body) values (${body})`.execute(store.db)
      await sleep(2)
    }
    const logMegabytes = (commits * body.length) / 2 ** 20
    assert.ok(
      commits < MAX_COMMITS,
      `the log never started over twice in ${logMegabytes.toFixed(0)} MB of commits`,
    )
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

/** ~12 KB commits making ~100 MB of log: half the backstop's, and 25 times the size that asks for a start over. */
const MAX_COMMITS = 8_000

/** How many times the write-ahead log at `walPath` started over: its header's checkpoint sequence number. */
function logStartsOver(walPath: string): number {
  const header = Buffer.alloc(16)
  const fd = openSync(walPath, 'r')
  try {
    return readSync(fd, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : 0
  } finally {
    closeSync(fd)
  }
}

test('SQLite: a closed store has stopped its checkpointer thread too, so its folder can go at once', async () => {
  // A checkpointer thread still opening its connection after the close would create the -wal and -shm
  // files again while the folder is being deleted.
  const threadsBefore = threadCount()
  const { dir, store } = sqliteStore()
  await writeBusily(store)
  await store.close()
  assert.equal(threadCount(), threadsBefore)
  rmSync(dir, { recursive: true })
  assert.equal(existsSync(dir), false)
})

/** This process's threads (Linux): each worker thread is one. */
const threadCount = () => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1])

test('SQLite: a statement from outside waits for an open transaction to end', async () => {
  const { dir, store } = sqliteStore()
  try {
    await sql`create table steps (n integer not null)`.execute(store.db)
    let outsideSaw: number | undefined
    let outside: Promise<void> | undefined
    await store.db.transaction().execute(async (tx) => {
      await sql`insert into steps (n) values (1)`.execute(tx)
      // A real pause (not only microtasks) inside the transaction: the outside count is sent meanwhile.
      outside = sql<{ n: number }>`select count(*) as n from steps`.execute(store.db).then(({ rows }) => {
        outsideSaw = rows[0]?.n
      })
      await sleep(50)
      await sql`insert into steps (n) values (2)`.execute(tx)
      assert.equal(outsideSaw, undefined, 'the outside statement ran inside the transaction')
    })
    await outside
    assert.equal(outsideSaw, 2)
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('SQLite: statements waiting for a lock another connection holds leave the event loop free, and run once it is released', async () => {
  const { dir, path, store } = sqliteStore()
  const other = new DatabaseSync(path)
  try {
    await sql`create table notes (body text not null)`.execute(store.db)
    other.exec('begin immediate')
    // The lock is released by a timer of this very thread: it can only fire while the statements wait
    // without blocking the event loop (SQLite's own busy handler sleeps the thread until it gives up).
    setTimeout(() => other.exec('commit'), 200)
    const outside = sql`insert into notes (body) values (${'outside'})`.execute(store.db)
    const inTransaction = store.db.transaction().execute(async (tx) => {
      await sql`insert into notes (body) values (${'in a transaction'})`.execute(tx)
    })
    await Promise.all([outside, inTransaction])
    const { rows } = await sql<{ body: string }>`select body from notes order by rowid`.execute(store.db)
    assert.deepEqual(
      rows.map((row) => row.body),
      ['outside', 'in a transaction'],
    )
  } finally {
    if (other.isTransaction) other.exec('rollback')
    other.close()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('SQLite: a statement still refused the lock after the wait fails as busy, having written nothing', async () => {
  const { dir, path, store } = sqliteStore()
  const other = new DatabaseSync(path)
  try {
    await sql`create table notes (body text not null)`.execute(store.db)
    store.setLockWaitMs(100)
    other.exec('begin immediate')
    let ticks = 0
    const ticking = setInterval(() => ticks++, 5)
    const refused = await sql`insert into notes (body) values (${'late'})`.execute(store.db).then(
      () => undefined,
      (error: unknown) => error,
    )
    clearInterval(ticking)
    assert.ok(isStoreBusy(refused), String(refused))
    assert.ok(ticks > 0, 'the event loop ran while the statement waited')
    other.exec('rollback')
    const { rows } = await sql<{ n: number }>`select count(*) as n from notes`.execute(store.db)
    assert.equal(rows[0]?.n, 0)
  } finally {
    if (other.isTransaction) other.exec('rollback')
    other.close()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('SQLite: an open, idle store does not keep a process alive, and one being closed does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'))
  try {
    const script = `
      import { createDb } from ${JSON.stringify(new URL('./create-db.ts', import.meta.url).href)}
      const answer = (store) => store.db.selectNoFrom((eb) => eb.val(42).as('answer')).execute()
      const closing = createDb(${JSON.stringify(`sqlite:${join(dir, 'closing.db')}`)})
      console.log(JSON.stringify(await answer(closing)))
      await closing.close()
      console.log('closed')
      const leftOpen = createDb(${JSON.stringify(`sqlite:${join(dir, 'open.db')}`)})
      console.log(JSON.stringify(await answer(leftOpen)))
    `
    writeFileSync(join(dir, 'child.mjs'), script)
    const child = spawnSync(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', join(dir, 'child.mjs')],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    )
    assert.equal(child.signal, null, 'the process had to be killed: the open store kept it alive')
    // Exit code 13 is a top-level await left waiting: the process ended before the close did.
    assert.equal(child.status, 0, child.stderr)
    assert.deepEqual(child.stdout.trim().split('\n'), ['[{"answer":42}]', 'closed', '[{"answer":42}]'])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('SQLite: a transaction that reads and then writes is not failed by another process committing in between', async () => {
  const { dir, path, store } = sqliteStore()
  try {
    await sql`create table counters (id integer primary key, n integer not null)`.execute(store.db)
    await sql`insert into counters (id, n) values (1, 0)`.execute(store.db)
    // Another process (a runner beside the server) writes while the transaction below is between its
    // read and its write; it gives up at once instead of waiting its busy timeout, and says so.
    const otherProcessWrites = () =>
      spawnSync(
        process.execPath,
        [
          '--disable-warning=ExperimentalWarning',
          '--input-type=module',
          '-e',
          `import { DatabaseSync } from 'node:sqlite'
          const db = new DatabaseSync(${JSON.stringify(path)})
          db.exec('PRAGMA busy_timeout = 0')
          try {
            db.exec('update counters set n = n + 10 where id = 1')
            console.log('written')
          } catch (error) {
            console.log(error.errcode === 5 ? 'busy' : String(error))
          }`,
        ],
        { encoding: 'utf8', timeout: 30_000 },
      ).stdout.trim()
    let other = ''
    await store.db.transaction().execute(async (tx) => {
      const { n } = await tx
        .selectFrom('counters' as never)
        .select(sql<number>`n`.as('n'))
        .executeTakeFirstOrThrow()
      other = otherProcessWrites()
      await sql`update counters set n = ${n + 1} where id = 1`.execute(tx)
    })
    // The transaction held the store's write lock from its start: the other process waits its turn
    // (for up to its busy timeout) instead of invalidating what the transaction read.
    assert.equal(other, 'busy')
    assert.equal(otherProcessWrites(), 'written')
    const { rows } = await sql<{ n: number }>`select n from counters where id = 1`.execute(store.db)
    assert.deepEqual(
      rows.map((row) => row.n),
      [11],
    )
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('SQLite: the statement cache drops the least recently used statement, not the oldest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'))
  const store = openSqlite(join(dir, 'svc.db'), (work) => work())
  try {
    const hot = store.database.prepare('select 0 as n')
    for (let n = 1; n <= 2000; n++) {
      store.database.prepare(`select ${n} as n`)
      // Used between the others, as a result's statements are between one-off batch shapes.
      assert.equal(store.database.prepare('select 0 as n'), hot, `after ${n} others`)
    }
  } finally {
    store.database.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
