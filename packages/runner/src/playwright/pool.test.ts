import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { test } from 'node:test'
import { UNUSED_CACHE_DAYS } from './compile-caches.ts'
import { PlaywrightPool } from './pool.ts'

const DAY_MS = 86_400_000

test(`compile caches no run used for ${UNUSED_CACHE_DAYS} days go when a pool starts; one in use stays`, async () => {
  const workRoot = mkdtempSync(join(tmpdir(), 'svc-pool-caches-'))
  const running = new PlaywrightPool({ workRoot, sandbox: 'off' })
  try {
    await running.start()
    const dirOf = (accountId: string) => running.cacheDirOf(accountId)
    const ageDays = (accountId: string, days: number) => {
      mkdirSync(join(dirOf(accountId), 'node'), { recursive: true })
      writeFileSync(join(dirOf(accountId), 'node', 'entry'), 'compiled')
      const then = new Date(Date.now() - days * DAY_MS)
      utimesSync(dirOf(accountId), then, then)
    }
    ageDays('deleted-account', UNUSED_CACHE_DAYS + 1)
    ageDays('quiet-account', UNUSED_CACHE_DAYS - 1)
    // Its runs only read the cache, which leaves the directory's times alone: the pool marks it used.
    ageDays('busy-account', UNUSED_CACHE_DAYS + 1)
    await running.compileCacheOf('busy-account')
    // The mark is not awaited by the run: wait for it to land.
    for (let tries = 0; statSync(dirOf('busy-account')).mtimeMs < Date.now() - DAY_MS && tries < 500; tries++)
      await new Promise((resolve) => setTimeout(resolve, 10))
    writeFileSync(join(running.cacheDir, 'not-a-cache'), 'kept')

    const next = new PlaywrightPool({ workRoot, sandbox: 'off' })
    await next.start()
    await next.close()
    assert.deepEqual(
      readdirSync(running.cacheDir).sort(),
      [basename(dirOf('busy-account')), basename(dirOf('quiet-account')), 'not-a-cache'].sort(),
    )
    assert.deepEqual(readdirSync(join(dirOf('busy-account'), 'node')), ['entry'])
  } finally {
    await running.close()
    rmSync(workRoot, { recursive: true, force: true })
  }
})
