import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { sql } from 'kysely'
import { listenForWakeups, onWakeup, raiseWakeup, type WakeupName } from './wakeups.ts'

/** Resolves on the next wake-up of `name`. */
const nextWakeup = (name: WakeupName) =>
  new Promise<void>((resolve) => {
    const off = onWakeup(name, () => {
      off()
      resolve()
    })
  })

for (const engine of testEngines()) {
  describe(`wake-ups on ${engine.engine}`, () => {
    test('a wake-up raised outside a transaction reaches this process at once', async () => {
      const store = await engine.createStore()
      try {
        const woken = nextWakeup('subscriber-mail')
        await raiseWakeup(store, 'subscriber-mail')
        await woken
      } finally {
        await store.dispose()
      }
    })

    if (engine.engine !== 'postgres') return

    test('raised in a transaction, it comes through the store once committed; a lost LISTEN connection comes back and says so', async () => {
      const store = await engine.createStore()
      const listener = listenForWakeups(store.url, { warn: () => {} })
      try {
        await listener.ready
        let committed = false
        const woken = nextWakeup('root-cause-analyses').then(() => committed)
        await store.db.transaction().execute(async (db) => {
          await raiseWakeup({ db, engine: store.engine }, 'root-cause-analyses')
          // Twice in one transaction: one NOTIFY.
          await raiseWakeup({ db, engine: store.engine }, 'root-cause-analyses')
          committed = true
        })
        assert.equal(await woken, true, 'woken only after the commit')

        // The LISTEN connection is cut: once it listens again, every worker is woken to look for work.
        const again = nextWakeup('alerts')
        const { rows } = await sql<{ cut: boolean }>`
          select pg_terminate_backend(pid) as cut from pg_stat_activity
          where datname = current_database() and query ilike 'listen%'`.execute(store.db)
        assert.deepEqual(
          rows.map((row) => row.cut),
          [true],
        )
        await again
        // And it listens again: a wake-up raised in a transaction comes only through it.
        const afterReconnect = nextWakeup('alerts')
        await store.db.transaction().execute((db) => raiseWakeup({ db, engine: store.engine }, 'alerts'))
        await afterReconnect
      } finally {
        await listener.close()
        await store.dispose()
      }
    })
  })
}
