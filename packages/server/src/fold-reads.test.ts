import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { ServiceContext } from './context.ts'
import { cachedFoldRead, cachedFoldReads, foldReadsChanged, forgetFoldReads } from './fold-reads.ts'
import { listenForWakeups, onWakeup, raiseWakeup } from './wakeups.ts'

/** An app's context as the cache sees it: its secret box stands for the app. */
const appContext = () => ({ secretBox: {} }) as unknown as ServiceContext

/** A loader that answers how many times it was called. */
function counter() {
  let calls = 0
  return { load: async () => ++calls, calls: () => calls }
}

describe('fold reads cache', () => {
  test('a read is kept per app until a write of what it holds; misses are not kept', async () => {
    const app = appContext()
    const other = appContext()
    const reads = counter()
    assert.equal(await cachedFoldRead(app, 'account:a', reads.load), 1)
    assert.equal(await cachedFoldRead(app, 'account:a', reads.load), 1)
    assert.equal(await cachedFoldRead(other, 'account:a', reads.load), 2, 'another app reads for itself')
    await foldReadsChanged({ db: undefined as never, engine: 'sqlite' })
    assert.equal(await cachedFoldRead(app, 'account:a', reads.load), 3, 'read again after a write')

    let misses = 0
    const miss = async () => {
      misses++
      return undefined
    }
    assert.equal(await cachedFoldRead(app, 'account:gone', miss), undefined)
    assert.equal(await cachedFoldRead(app, 'account:gone', miss), undefined)
    assert.equal(misses, 2)
  })

  test('many keys: only those not in memory are read, in one call; a forgotten key is read again', async () => {
    const app = appContext()
    const asked: string[][] = []
    const load = async (keys: string[]) => {
      asked.push(keys)
      return new Map(keys.filter((key) => key !== 'zone:none').map((key) => [key, `${key}!`]))
    }
    const first = await cachedFoldReads(app, ['zone:a', 'zone:b', 'zone:none'], load)
    assert.deepEqual(
      [...first],
      [
        ['zone:a', 'zone:a!'],
        ['zone:b', 'zone:b!'],
      ],
    )
    forgetFoldReads(app, ['zone:b'])
    const second = await cachedFoldReads(app, ['zone:a', 'zone:b', 'zone:c'], load)
    assert.deepEqual([...second].sort(), [
      ['zone:a', 'zone:a!'],
      ['zone:b', 'zone:b!'],
      ['zone:c', 'zone:c!'],
    ])
    assert.deepEqual(asked, [
      ['zone:a', 'zone:b', 'zone:none'],
      ['zone:b', 'zone:c'],
    ])
  })
})

for (const engine of testEngines()) {
  if (engine.engine !== 'postgres') continue
  describe(`fold reads cache on ${engine.engine}`, () => {
    test("another node's write, in a transaction, drops this node's reads once it commits", async () => {
      const store = await engine.createStore()
      const listener = listenForWakeups(store.url, { warn: () => {} })
      try {
        await listener.ready
        const app = appContext()
        const reads = counter()
        assert.equal(await cachedFoldRead(app, 'group:a:1', reads.load), 1)
        const arrived = new Promise<void>((resolve) => {
          const off = onWakeup('fold-reads', () => {
            off()
            resolve()
          })
        })
        await store.db.transaction().execute(async (db) => {
          // What another node's write raises (its own cache it drops itself).
          await raiseWakeup({ db, engine: store.engine }, 'fold-reads')
          assert.equal(await cachedFoldRead(app, 'group:a:1', reads.load), 1, 'kept until the commit')
        })
        await arrived
        assert.equal(await cachedFoldRead(app, 'group:a:1', reads.load), 2)
      } finally {
        await listener.close()
        await store.dispose()
      }
    })
  })
}
