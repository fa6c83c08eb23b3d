import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { openSqlite } from './sqlite.ts'

test('SQLite: the write-ahead log is copied into the database file by the checkpointer thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'))
  const path = join(dir, 'svc.db')
  const store = openSqlite(path)
  try {
    store.prepare('create table notes (body text not null)').run([])
    store.prepare('insert into notes (body) values (?)').run(['written'])
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
    for (let waited = 0; waited < 20 && copied.length === 0; waited++) {
      await sleep(250)
      copied = inFile()
    }
    assert.deepEqual(copied, [{ body: 'written' }])
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
