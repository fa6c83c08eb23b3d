import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { runBrowserCheck } from './index.ts'
import {
  browserTestsSkipReason,
  descendantsOf,
  html,
  PlaywrightPool,
  type Site,
  scriptTestContext,
  startSite,
} from './testing.ts'
import type { ScriptJob, ScriptRunResult } from './types.ts'

const skip = browserTestsSkipReason()
const PAGE_SECRET = 'page-secret-7d41c09e'
const COOKIE_SECRET = 'cookie-secret-2b86f3a1'
const STORAGE_SECRET = 'storage-secret-c5e09d72'

/** Account A's run: opens a page holding A's secrets (text, cookie, storage) and keeps it open. */
const HOLDER = `import { test } from '@playwright/test'
test('holds a signed-in page', async ({ page }) => {
  await page.goto(process.env.SITE + '/account')
  await page.evaluate((value) => localStorage.setItem('token', value), ${JSON.stringify(STORAGE_SECRET)})
  // Waits in the test worker, not in Chromium: the page stays open until the test lets it go.
  await fetch(process.env.SITE + '/hold')
})`

/**
 * Every route to another run's pages we know of, through the endpoint the run is given: Playwright's
 * own view, and the browser's CDP session (targets, contexts' cookies, attaching and evaluating,
 * opening a page in another context), on the run's browser and on a second connection of its own.
 */
const SPY = `import { test, chromium } from '@playwright/test'
test('looks around', async ({ browser }) => {
  const found = { pages: [], targets: [], cookies: [], evaluated: [], opened: [], errors: [] }
  const attempt = async (what, fn) => { try { await fn() } catch (error) { found.errors.push(what + ': ' + error.message.split('\\n')[0]) } }
  // Endpoints of other browsers, wherever this run can read: other runs' files and processes.
  const fs = await import('node:fs')
  const own = process.env.PW_TEST_CONNECT_WS_ENDPOINT
  const endpoints = new Set()
  found.files = []
  found.endpoints = []
  const search = (path, text, secrets = true) => {
    for (const match of text.matchAll(/ws:\\/\\/[\\w.:-]+\\/[0-9a-f]{32}/g)) {
      if (match[0] !== own) found.endpoints.push(match[0] + ' in ' + path)
      if (match[0] !== own) endpoints.add(match[0])
    }
    if (secrets && process.env.LOOK_FOR.split(',').some((secret) => text.includes(secret))) found.files.push(path)
  }
  const walk = (path, depth) => {
    try {
      const stat = fs.lstatSync(path)
      if (stat.isDirectory() && depth < 12) for (const name of fs.readdirSync(path)) walk(path + '/' + name, depth + 1)
      else if (stat.isFile() && stat.size < 4_000_000) search(path, fs.readFileSync(path, 'latin1'))
    } catch {}
  }
  for (const name of fs.readdirSync(process.env.WORK_ROOT)) if (name.startsWith('svc-')) walk(process.env.WORK_ROOT + '/' + name, 0)
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\\d+$/.test(name))) {
    for (const file of ['environ', 'cmdline']) {
      // Its own processes have LOOK_FOR in their environment: only endpoints count here.
      try { search('/proc/' + pid + '/' + file, fs.readFileSync('/proc/' + pid + '/' + file, 'latin1'), false) } catch {}
    }
  }

  const connections = [browser, await chromium.connect(own)]
  for (const endpoint of endpoints) await attempt('connect', async () => connections.push(await chromium.connect(endpoint, { timeout: 5000 })))
  for (const connected of connections) {
    for (const context of connected.contexts()) for (const page of context.pages()) {
      await attempt('page', async () => found.pages.push(page.url() + ' ' + (await page.content())))
    }
    const cdp = await connected.newBrowserCDPSession()
    const { targetInfos } = await cdp.send('Target.getTargets')
    found.targets.push(...targetInfos.map((target) => target.url))
    await attempt('contexts', async () => {
      const { browserContextIds } = await cdp.send('Target.getBrowserContexts')
      for (const browserContextId of browserContextIds) {
        await attempt('cookies', async () => {
          const { cookies } = await cdp.send('Storage.getCookies', { browserContextId })
          found.cookies.push(...cookies.map((cookie) => cookie.name + '=' + cookie.value))
        })
        await attempt('open', async () => {
          const { targetId } = await cdp.send('Target.createTarget', { url: process.env.SITE + '/echo', browserContextId })
          found.opened.push(targetId)
        })
      }
    })
    for (const target of targetInfos.filter((info) => info.type === 'page')) {
      await attempt('attach', async () => {
        const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false })
        const answer = new Promise((resolve) => cdp.on('Target.receivedMessageFromTarget', (event) => {
          if (event.sessionId === sessionId) resolve(event.message)
        }))
        const expression = "document.body.innerText + ' ' + document.cookie + ' ' + localStorage.getItem('token')"
        await cdp.send('Target.sendMessageToTarget', {
          sessionId,
          message: JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression } }),
        })
        found.evaluated.push(await Promise.race([answer, new Promise((resolve) => setTimeout(() => resolve('no answer'), 5000))]))
      })
    }
  }
  for (const connected of connections.slice(1)) await connected.close()
  console.log('FOUND ' + JSON.stringify(found))
})`

/** The Chromium browser processes (not their renderers and helpers) under this test process. */
function chromiumBrowsers(): number[] {
  return descendantsOf(process.pid).filter((pid) => {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      return /\/chromium$/.test(command[0] as string) && !command.some((arg) => arg.startsWith('--type='))
    } catch {
      return false
    }
  })
}

function processGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z'
  } catch {
    return true
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50))
}

describe('runs of different accounts never share a browser', { skip }, () => {
  let site: Site
  let holding = 0
  const held: (() => void)[] = []
  // A work root of its own: the spy searches all of it.
  const workRoot = mkdtempSync(join(tmpdir(), 'svc-isolation-'))
  const pool = new PlaywrightPool({ concurrency: 3, workRoot, sandbox: 'on' })
  const { ctx, cleanup } = scriptTestContext(pool)
  const job = (accountId: string, script: string): ScriptJob => ({
    name: `${accountId} check`,
    runLocation: 'local',
    accountId,
    script,
    environmentVariables: [
      { key: 'SITE', value: site.url },
      { key: 'WORK_ROOT', value: pool.workRoot },
      { key: 'LOOK_FOR', value: [PAGE_SECRET, COOKIE_SECRET, STORAGE_SECRET].join(',') },
    ],
  })
  const logsOf = (result: ScriptRunResult) => result.checkResult.logs.map((entry) => entry.text).join('\n')
  const foundBy = (result: ScriptRunResult) => {
    const line = logsOf(result)
      .split('\n')
      .find((text) => text.startsWith('FOUND '))
    assert.ok(line, logsOf(result))
    return JSON.parse(line.slice('FOUND '.length)) as Record<string, string[]>
  }

  before(async () => {
    site = await startSite({
      '/account': (_request, response) => {
        response.setHeader('set-cookie', `session=${COOKIE_SECRET}; Path=/`)
        html(`<p>${PAGE_SECRET}</p>`)(_request, response)
      },
      '/echo': (request, response) => {
        // What a page opened in another run's context would send: that context's cookies.
        html(`<p>${request.headers.cookie ?? 'no cookie'}</p>`)(request, response)
      },
      '/hold': (_request, response) => {
        holding++
        held.push(() => response.end('released'))
      },
    })
  })
  after(async () => {
    for (const release of held) release()
    await pool.close()
    await site.close()
    cleanup()
    // A closed browser host removes its directory as it exits.
    rmSync(workRoot, { recursive: true, force: true, maxRetries: 10 })
  })

  test("another account's run finds none of A's pages, cookies or storage; a run of A itself shares A's browser", async () => {
    const holder = runBrowserCheck(job('account-a', HOLDER), ctx())
    await until(() => holding === 1)

    const spy = await runBrowserCheck(job('account-b', SPY), ctx())
    assert.equal(spy.error, null, logsOf(spy))
    const found = foundBy(spy)
    const everything = JSON.stringify(found)
    // No other browser's endpoint anywhere it can read (files, processes), and none of A's files:
    // A's script, its trace in A's browser's profile, the compiled script in A's cache.
    assert.deepEqual(found.endpoints, [], everything)
    assert.deepEqual(found.files, [], everything)
    for (const secret of [PAGE_SECRET, COOKIE_SECRET, STORAGE_SECRET])
      assert.ok(!everything.includes(secret), `account B found ${secret}: ${everything}`)
    assert.ok(!found.targets?.some((url) => url.endsWith('/account')), everything)
    // Its own requests to the site never carried A's session.
    assert.ok(!site.requests.some((request) => request.url === '/echo' && request.headers.cookie), everything)
    assert.equal(chromiumBrowsers().length, 2)
    assert.deepEqual(pool.browsers.map((browser) => browser.accountId).sort(), ['account-a', 'account-b'])

    // The same script as account A sees A's page: the routes work, and one account's runs share a browser.
    const sameAccount = await runBrowserCheck(job('account-a', SPY), ctx())
    assert.equal(sameAccount.error, null, logsOf(sameAccount))
    const ownFound = JSON.stringify(foundBy(sameAccount))
    for (const secret of [PAGE_SECRET, COOKIE_SECRET, STORAGE_SECRET])
      assert.ok(ownFound.includes(secret), `account A's second run did not find ${secret}: ${ownFound}`)
    assert.equal(chromiumBrowsers().length, 2)
    assert.equal(pool.browsers.filter((browser) => browser.accountId === 'account-a').length, 1)

    for (const release of held.splice(0)) release()
    const held_ = await holder
    assert.equal(held_.error, null, logsOf(held_))
  })
})

describe('browsers per account in the pool', { skip }, () => {
  let site: Site
  let holding = 0
  const held: (() => void)[] = []
  before(async () => {
    site = await startSite({
      '/hold': (_request, response) => {
        holding++
        held.push(() => response.end('released'))
      },
    })
  })
  after(() => site.close())
  // Accounts a, b and c in every test: a process warms an account's compile cache up once, in any pool.
  const job = (accountId: string, script = `console.log('ran')\n`): ScriptJob => ({
    name: `${accountId} check`,
    runLocation: 'local',
    accountId,
    script,
    environmentVariables: [{ key: 'SITE', value: site.url }],
  })
  const hold = (title = 'holds') => `import { test } from '@playwright/test'
test('${title}', async ({ page }) => {
  await page.goto('about:blank')
  await fetch(process.env.SITE + '/hold')
})`
  const PLAIN = `const { chromium } = require('playwright')
;(async () => {
  const browser = await chromium.launch()
  await (await browser.newPage()).goto('about:blank')
  await browser.close()
})()`

  test("one account's concurrent runs share one browser process", async () => {
    const pool = new PlaywrightPool({ concurrency: 2 })
    const { ctx, cleanup } = scriptTestContext(pool)
    try {
      const before = holding
      // Two checks (two tests of one name would share their trace's name in the browser).
      const runs = [
        runBrowserCheck(job('a', hold('first')), ctx()),
        runBrowserCheck(job('a', hold('second')), ctx()),
      ]
      await until(() => holding === before + 2)
      assert.equal(chromiumBrowsers().length, 1)
      assert.deepEqual(
        pool.browsers.map(({ accountId, runs }) => ({ accountId, runs })),
        [{ accountId: 'a', runs: 2 }],
      )
      for (const release of held.splice(0)) release()
      for (const result of await Promise.all(runs)) assert.equal(result.error, null)
    } finally {
      await pool.close()
      cleanup()
    }
  })

  test('an idle browser is closed after the idle time; the next run starts a new one', async () => {
    const idle: { close: () => void; ms: number; cancelled: boolean }[] = []
    const pool = new PlaywrightPool({
      concurrency: 1,
      browserIdleMs: 42_000,
      scheduleIdleClose: (close, ms) => {
        const timer = { close, ms, cancelled: false }
        idle.push(timer)
        return () => {
          timer.cancelled = true
        }
      },
    })
    const { ctx, cleanup } = scriptTestContext(pool)
    try {
      assert.equal((await runBrowserCheck(job('a', PLAIN), ctx())).error, null)
      const [first] = pool.browsers
      assert.deepEqual({ ...first, pid: 0 }, { accountId: 'a', runs: 0, pid: 0 })
      // One timer each time the browser falls idle (in the sandbox the account's warm-up run is one
      // more time); only the last is on.
      const timersOn = () => idle.filter((timer) => !timer.cancelled)
      assert.deepEqual(
        timersOn().map(({ ms }) => ms),
        [42_000],
      )
      const firstTimer = timersOn()[0]
      assert.equal(processGone(first?.pid as number), false)

      // Used again before its time is up: the same browser, and the earlier idle timer is off.
      assert.equal((await runBrowserCheck(job('a', PLAIN), ctx())).error, null)
      assert.equal(pool.browsers[0]?.pid, first?.pid)
      assert.equal(firstTimer?.cancelled, true)
      assert.deepEqual(
        timersOn().map(({ ms }) => ms),
        [42_000],
      )

      timersOn()[0]?.close()
      assert.equal(pool.browsers.length, 0)
      await until(() => processGone(first?.pid as number))
      assert.deepEqual(chromiumBrowsers(), [])

      assert.equal((await runBrowserCheck(job('a', PLAIN), ctx())).error, null)
      assert.notEqual(pool.browsers[0]?.pid, first?.pid)
    } finally {
      await pool.close()
      cleanup()
    }
  })

  test("an account's browser that dies is started again by its next run", async () => {
    const pool = new PlaywrightPool({ concurrency: 1 })
    const { ctx, cleanup } = scriptTestContext(pool)
    try {
      assert.equal((await runBrowserCheck(job('a', PLAIN), ctx())).error, null)
      const dead = pool.browsers[0]?.pid as number
      process.kill(dead, 'SIGKILL')
      await until(() => pool.browsers.length === 0)
      assert.equal((await runBrowserCheck(job('a', PLAIN), ctx())).error, null)
      assert.equal(pool.browsers.length, 1)
      assert.notEqual(pool.browsers[0]?.pid, dead)
      assert.equal(chromiumBrowsers().length, 1)
    } finally {
      await pool.close()
      cleanup()
    }
  })

  test('at most maxBrowsers browsers: the least recently used idle one makes room, else a run waits for one', async () => {
    const pool = new PlaywrightPool({ concurrency: 2, maxBrowsers: 2 })
    const { ctx, cleanup } = scriptTestContext(pool)
    try {
      for (const account of ['a', 'b'])
        assert.equal((await runBrowserCheck(job(account, PLAIN), ctx())).error, null)
      const pidOf = (account: string) => pool.browsers.find((browser) => browser.accountId === account)?.pid
      const [a, b] = [pidOf('a'), pidOf('b')]
      // b was used last: a's browser makes room for c's.
      assert.equal((await runBrowserCheck(job('c', PLAIN), ctx())).error, null)
      assert.deepEqual(pool.browsers.map((browser) => browser.accountId).sort(), ['b', 'c'])
      await until(() => processGone(a as number))
      assert.equal((await runBrowserCheck(job('b', PLAIN), ctx())).error, null)
      assert.equal(pidOf('b'), b)
      assert.equal(chromiumBrowsers().length, 2)
    } finally {
      await pool.close()
      cleanup()
    }

    // Both browsers busy: a third account's run waits until one of them is free.
    const busy = new PlaywrightPool({ concurrency: 2, maxBrowsers: 1 })
    const busyCtx = scriptTestContext(busy)
    try {
      const before = holding
      const holder = runBrowserCheck(job('a', hold()), busyCtx.ctx())
      await until(() => holding === before + 1)
      const waiting = runBrowserCheck(job('b', PLAIN), busyCtx.ctx())
      await until(() => busy.waitingForBrowser === 1)
      assert.deepEqual(
        busy.browsers.map((browser) => browser.accountId),
        ['a'],
      )
      for (const release of held.splice(0)) release()
      assert.equal((await holder).error, null)
      const result = await waiting
      assert.equal(result.error, null)
      assert.deepEqual(
        busy.browsers.map((browser) => browser.accountId),
        ['b'],
      )
      assert.equal(chromiumBrowsers().length, 1)
    } finally {
      await busy.close()
      busyCtx.cleanup()
    }
  })
})
