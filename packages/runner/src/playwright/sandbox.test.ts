import assert from 'node:assert/strict'
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import type { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { runBrowserCheck, runMultiStepCheck } from './index.ts'
import { hiddenPathProblem, SANDBOX_PATH, type ScriptSandboxMode, sandboxed } from './sandbox.ts'
import {
  artifactBytes,
  browserTestsSkipReason,
  descendantsOf,
  html,
  PlaywrightPool,
  type Site,
  startSite,
} from './testing.ts'
import type { ScriptRunResult } from './types.ts'

const skip = browserTestsSkipReason()
const OWNER = fileURLToPath(new URL('../testing/pool-owner.ts', import.meta.url))
const ENV_SECRET = 'env-secret-4f1c9a27d3b8'
const DATA_SECRET = 'data-secret-9e2b7c51a0d6'
/** Outside /tmp, which the sandbox replaces: hidden paths and work roots of their own are tested here. */
const LOCAL_TMP = fileURLToPath(new URL('../../.tmp/', import.meta.url))
/** svc's own install stays visible to runs, in /tmp too should it lie there (a checkout in /tmp). */
const INSTALL_DIR = realpathSync(fileURLToPath(new URL('../../../../', import.meta.url)))
const INSTALL_IN_TMP = INSTALL_DIR.startsWith('/tmp/') ? [INSTALL_DIR.split('/')[2] as string] : []

/** Reads `/proc/<SERVER_PID>/environ` and the data dir's store file, and logs what it got. */
const READ_FILES = `const fs = require('node:fs')
for (const path of ['/proc/' + process.env.SERVER_PID + '/environ', process.env.DATA_FILE]) {
  try {
    console.log('read ' + path + ': ' + fs.readFileSync(path, 'utf8').replace(/\\0/g, ' '))
  } catch (error) {
    console.log('failed ' + path + ': ' + error.code)
  }
}
console.log('own environment: ' + JSON.stringify(process.env))`

/** The same files through the shared Chromium. */
const GOTO_FILES = `const { chromium } = require('playwright')
;(async () => {
  const browser = await chromium.launch()
  const page = await browser.newPage()
  for (const path of ['/proc/' + process.env.SERVER_PID + '/environ', process.env.DATA_FILE]) {
    try {
      await page.goto('file://' + path)
      console.log('opened ' + path + ': ' + (await page.textContent('body')))
    } catch (error) {
      console.log('failed ' + path + ': ' + error.message.split('\\n')[0])
    }
  }
  await browser.close()
})()`

const RUN_SECRET = 'run-secret-6d2f8b41c7e9'
const HOST_SECRET = 'host-secret-1a7e5c93f08b'
const SCRIPT_MARKER = 'script-marker-3b9d0e64a2f1'

/** Run A: takes a screenshot, then waits on /hold until the test releases it (its trace is on). */
const HOLDING_TEST = `import { test } from '@playwright/test'
test('holds', async ({ page }) => {
  // ${SCRIPT_MARKER}
  await page.goto(process.env.SITE + '/page')
  await page.screenshot({ path: 'a.png' })
  await fetch(process.env.SITE + '/hold')
})`

/**
 * Run B: lists the work root and A's directory, reads A's files (its script, generated config, run
 * config), looks for A's environment in /proc and for the host's file in /tmp, then asks Chromium for
 * A's config, A's directory and the host's file.
 */
const SNOOP = `const fs = require('node:fs')
const path = require('node:path')
const { chromium } = require('playwright')
const show = (label, read) => {
  try {
    console.log(label + ': ' + read())
  } catch (error) {
    console.log(label + ' failed: ' + error.code)
  }
}
const filesOf = (dir) => {
  let out = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out = out.concat(filesOf(path.join(dir, entry.name)).map((file) => entry.name + '/' + file))
    else if (entry.isFile()) out.push(entry.name)
  }
  return out
}
show('work root', () => fs.readdirSync(process.env.WORK_ROOT).sort().join(','))
show('A dir', () => fs.readdirSync(process.env.A_DIR).sort().join(','))
show('A files', () => filesOf(process.env.A_DIR).sort().join(','))
show('A script', () => fs.readFileSync(process.env.A_DIR + '/multi-step.spec.js', 'utf8').replace(/\\n/g, ' '))
show('A config', () => fs.readFileSync(process.env.A_DIR + '/.svc/playwright.config.cjs', 'utf8').slice(0, 200))
show('A environment', () =>
  fs.readdirSync('/proc').filter((pid) => /^\\d+$/.test(pid)).flatMap((pid) => {
    try {
      return fs.readFileSync('/proc/' + pid + '/environ', 'utf8').split('\\0').filter((v) => v.startsWith('A_SECRET='))
    } catch {
      return []
    }
  }).join(','))
show('host file', () => fs.readFileSync(process.env.HOST_FILE, 'utf8'))
show('tmp', () => JSON.stringify(fs.readdirSync('/tmp').sort().slice(0, 20)))
show('tmp has host file', () => fs.readdirSync('/tmp').includes(process.env.HOST_FILE.slice('/tmp/'.length)))
show('cache write', () => {
  fs.writeFileSync(process.env.CACHE + '/planted', 'x')
  return 'written'
})
;(async () => {
  const browser = await chromium.launch()
  const page = await browser.newPage()
  for (const [label, file] of [
    ['chromium A config', process.env.A_DIR + '/.svc/playwright.config.cjs'],
    ['chromium A dir', process.env.A_DIR],
    ['chromium host file', process.env.HOST_FILE],
  ]) {
    try {
      await page.goto('file://' + file)
      console.log(label + ': ' + (await page.textContent('body')).replace(/\\n/g, ' '))
    } catch (error) {
      console.log(label + ' failed: ' + error.message.split('\\n')[0].replace(/^page\\.goto: /, '').replace(/ at .*$/, ''))
    }
  }
  await browser.close()
})()`

interface Owner {
  process: ChildProcess
  sandbox: Promise<{ mode: string; sandboxed: boolean }>
  results: ScriptRunResult[]
  exited: Promise<void>
}

describe('the script sandbox', { skip }, () => {
  let site: Site
  let root: string
  let localRoot: string
  let dataDir: string
  let dataFile: string
  let holding = 0
  let waiting: ServerResponse[] = []

  before(async () => {
    site = await startSite({
      '/page': html('<h1>target</h1>'),
      '/hold': (_request, response) => {
        holding++
        waiting.push(response)
      },
    })
    root = mkdtempSync(join(tmpdir(), 'svc-sandbox-test-'))
    mkdirSync(LOCAL_TMP, { recursive: true })
    localRoot = mkdtempSync(join(LOCAL_TMP, 'svc-sandbox-test-'))
    dataDir = join(localRoot, 'data')
    mkdirSync(dataDir)
    dataFile = join(dataDir, 'svc.db')
    writeFileSync(dataFile, `SQLite format 3 ... ${DATA_SECRET}`)
  })
  after(async () => {
    await site.close()
    rmSync(root, { recursive: true, force: true })
    rmSync(localRoot, { recursive: true, force: true })
  })

  /** Answers the requests to /hold that wait. */
  function release() {
    for (const response of waiting) response.end('released')
    waiting = []
  }

  /** A process with the server's secret in its environment that runs `scripts` in its own pool. */
  function startOwner(sandbox: ScriptSandboxMode, workRoot: string, scripts: string[]): Owner {
    mkdirSync(workRoot, { recursive: true })
    const config = {
      sandbox,
      hiddenPaths: [dataDir],
      workRoot,
      artifactsDir: join(root, 'artifacts'),
      scripts,
      variables: [
        { key: 'DATA_FILE', value: dataFile },
        { key: 'SITE', value: site.url },
      ],
    }
    const child = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', OWNER, JSON.stringify(config)],
      {
        env: { SVC_ENCRYPTION_KEY: ENV_SECRET, ...process.env },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    const results: ScriptRunResult[] = []
    let resolveSandbox: (status: { mode: string; sandboxed: boolean }) => void = () => {}
    const sandboxStatus = new Promise<{ mode: string; sandboxed: boolean }>((resolve) => {
      resolveSandbox = resolve
    })
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const message = JSON.parse(line)
      if (message.sandbox) resolveSandbox(message.sandbox)
      if (message.result) results.push(message.result)
    })
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    return { process: child, sandbox: sandboxStatus, results, exited }
  }

  const logsOf = (result: ScriptRunResult | undefined) =>
    (result?.checkResult.logs ?? []).map((entry) => entry.text).join('\n')

  test('a script reads neither the server’s environment nor its data dir, in Node.js or through Chromium; with SVC_SCRIPT_SANDBOX=off it does', async () => {
    for (const mode of ['on', 'off'] as const) {
      const owner = startOwner(mode, join(root, `work-${mode}`), [READ_FILES, GOTO_FILES])
      await owner.exited
      assert.equal(owner.process.exitCode, 0)
      assert.deepEqual(await owner.sandbox, { mode, sandboxed: mode === 'on', problem: null })
      const [read, goto] = owner.results
      assert.equal(read?.error, null, logsOf(read))
      assert.equal(goto?.error, null, logsOf(goto))
      const environ = `/proc/${owner.process.pid}/environ`
      const ownEnvironment = logsOf(read)
        .split('\n')
        .find((line) => line.startsWith('own environment: '))
      // The run's own environment is the check's variables and ours, never the server's.
      assert.ok(ownEnvironment?.includes(`"DATA_FILE":"${dataFile}"`), ownEnvironment)
      assert.ok(!ownEnvironment?.includes(ENV_SECRET), ownEnvironment)
      if (mode === 'on') {
        assert.match(logsOf(read), new RegExp(`failed ${environ}: ENOENT`))
        assert.match(logsOf(read), new RegExp(`failed ${dataFile}: EACCES`))
        assert.match(logsOf(goto), new RegExp(`failed ${environ}: page.goto: net::ERR_FILE_NOT_FOUND`))
        assert.match(logsOf(goto), new RegExp(`failed ${dataFile}: page.goto: net::ERR_FILE_NOT_FOUND`))
        for (const result of [read, goto]) {
          assert.ok(!logsOf(result).includes(ENV_SECRET), logsOf(result))
          assert.ok(!logsOf(result).includes(DATA_SECRET), logsOf(result))
        }
      } else {
        // What the sandbox stops: the same scripts read both without it.
        assert.match(logsOf(read), new RegExp(`read ${environ}: SVC_ENCRYPTION_KEY=${ENV_SECRET} `))
        assert.match(logsOf(read), new RegExp(`read ${dataFile}: SQLite format 3 \\.\\.\\. ${DATA_SECRET}`))
        assert.match(logsOf(goto), new RegExp(`opened ${dataFile}: SQLite format 3 \\.\\.\\. ${DATA_SECRET}`))
      }
    }
  })

  test('a run sees nothing of another run’s directory, nor of the host’s /tmp, in Node.js or through Chromium; its own artifacts come back; with SVC_SCRIPT_SANDBOX=off it sees all', async () => {
    const hostFile = `/tmp/svc-sandbox-host-${process.pid}-${Date.now()}`
    writeFileSync(hostFile, HOST_SECRET)
    try {
      for (const mode of ['on', 'off'] as const) {
        const workRoot = join(root, `shared-${mode}`)
        mkdirSync(workRoot)
        const pool = new PlaywrightPool({ workRoot, sandbox: mode, hiddenPaths: [dataDir], concurrency: 2 })
        try {
          assert.deepEqual(await pool.start(), { mode, sandboxed: mode === 'on', problem: null })
          const artifactsA = join(localRoot, `artifacts-a-${mode}`)
          const before = holding
          const runA = runMultiStepCheck(
            {
              name: 'A',
              runLocation: 'local',
              script: HOLDING_TEST,
              environmentVariables: [
                { key: 'SITE', value: site.url },
                { key: 'A_SECRET', value: RUN_SECRET, secret: true },
              ],
            },
            { now: () => new Date(), playwright: pool, artifactsDir: artifactsA },
          )
          while (holding === before) await new Promise((resolve) => setTimeout(resolve, 100))
          // A is in its test, holding: slot 0 is its directory.
          const dirA = join(workRoot, `svc-run-${process.pid}-${pool.id}-0`)
          const runB = await runBrowserCheck(
            {
              name: 'B',
              runLocation: 'local',
              script: SNOOP,
              environmentVariables: [
                { key: 'WORK_ROOT', value: workRoot },
                { key: 'A_DIR', value: dirA },
                { key: 'HOST_FILE', value: hostFile },
                { key: 'CACHE', value: await pool.compileCacheOf('') },
              ],
            },
            { now: () => new Date(), playwright: pool, artifactsDir: join(localRoot, `artifacts-b-${mode}`) },
          )
          release()
          const resultA = await runA
          const logsB = logsOf(runB)
          assert.equal(runB.error, null, logsB)
          // The warm-up (sandboxed pools only) filled the cache the runs then only read.
          assert.equal(readdirSync(await pool.compileCacheOf('')).length > 0, true)
          const dirB = `svc-run-${process.pid}-${pool.id}-1`
          if (mode === 'on') {
            assert.deepEqual(logsB.split('\n'), [
              // Its own directory, and the compile cache (read only) that runs share.
              `work root: svc-playwright-cache,${dirB}`,
              'A dir failed: ENOENT',
              'A files failed: ENOENT',
              'A script failed: ENOENT',
              'A config failed: ENOENT',
              'A environment: ',
              'host file failed: ENOENT',
              // Its own /tmp: nothing of the host's but the way to its own directory.
              `tmp: ${JSON.stringify([basename(root), ...INSTALL_IN_TMP].sort())}`,
              'tmp has host file: false',
              // The compile cache runs share is read only: only the pool's warm-up filled it.
              'cache write failed: EROFS',
              'chromium A config failed: net::ERR_FILE_NOT_FOUND',
              'chromium A dir failed: net::ERR_FILE_NOT_FOUND',
              'chromium host file failed: net::ERR_FILE_NOT_FOUND',
            ])
            for (const secret of [RUN_SECRET, HOST_SECRET, SCRIPT_MARKER])
              assert.ok(!logsB.includes(secret), logsB)
          } else {
            // What the sandbox stops: B lists and reads A's directory, its script and config, its
            // environment (the secret variable), and the host's /tmp, in Node.js and through Chromium.
            assert.match(logsB, new RegExp(`^work root: .*svc-run-${process.pid}-${pool.id}-0`, 'm'))
            assert.match(logsB, /^A dir: .*\.svc/m)
            assert.match(logsB, /^A files: .*\.svc\/playwright\.config\.cjs,.*\.svc\/run\.json/m)
            assert.match(logsB, new RegExp(`^A script: .*${SCRIPT_MARKER}`, 'm'))
            assert.match(logsB, /^A config: module\.exports = \{"testDir"/m)
            assert.match(logsB, new RegExp(`^A environment: A_SECRET=${RUN_SECRET}`, 'm'))
            assert.match(logsB, new RegExp(`^host file: ${HOST_SECRET}`, 'm'))
            // Looked up by name: the host's /tmp may hold more entries than a log line keeps.
            assert.match(logsB, /^tmp has host file: true$/m)
            assert.match(logsB, /^chromium A config: .*testDir/m)
            assert.match(logsB, new RegExp(`^chromium host file: ${HOST_SECRET}`, 'm'))
            assert.match(logsB, /^cache write: written$/m)
          }
          // A's own screenshot and trace come back whole either way.
          assert.equal(resultA.error, null, logsOf(resultA))
          assert.deepEqual(
            resultA.checkResult.tests.map((test) => [test.title, test.status]),
            [['holds', 'passed']],
          )
          assert.deepEqual(
            resultA.checkResult.screenshots.map((shot) => [shot.path, shot.name]),
            [['screenshot-1.png', 'a.png']],
          )
          assert.equal(resultA.checkResult.traces.length, 1)
          const stored = artifactBytes(artifactsA)
          const png = stored.find((file) => file.name === 'screenshot-1.png')
          assert.deepEqual(png?.data.subarray(0, 8), Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]))
          assert.equal(png?.data.length, resultA.checkResult.screenshots[0]?.size)
          const traceEvents = stored.find((file) => /^trace-1\.zip\/.*\.trace$/.test(file.name))
          assert.ok(
            traceEvents?.data.toString().includes(`${site.url}/page`),
            stored.map((f) => f.name).join(', '),
          )
          // Its secret is scrubbed from what it stored.
          for (const file of stored) assert.ok(!file.data.includes(RUN_SECRET), file.name)
        } finally {
          release()
          await pool.close()
        }
      }
    } finally {
      rmSync(hostFile, { force: true })
    }
  })

  test('a work root outside /tmp is read only and shows only the kept directories, writable unless read only; a private temporary directory is empty and writable, and only its own', () => {
    const base = mkdtempSync(join(LOCAL_TMP, 'root-'))
    const temp = mkdtempSync(join(LOCAL_TMP, 'temp-'))
    const tempKept = join(temp, 'kept')
    mkdirSync(tempKept)
    writeFileSync(join(temp, 'host'), HOST_SECRET)
    const [own, other, cache] = ['own', 'other', 'cache'].map((name) => join(base, name)) as [
      string,
      string,
      string,
    ]
    for (const dir of [own, other, cache]) mkdirSync(dir)
    writeFileSync(join(other, 'secret'), RUN_SECRET)
    writeFileSync(join(own, 'mine'), 'mine')
    const script = `const fs = require('node:fs')
const [base, own, other, cache, temp] = process.argv.slice(1)
const show = (label, act) => { try { console.log(label + ': ' + act()) } catch (error) { console.log(label + ' failed: ' + error.code) } }
show('base', () => fs.readdirSync(base).sort().join(','))
show('base write', () => { fs.writeFileSync(base + '/new', 'new'); return 'written' })
show('temp', () => fs.readdirSync(temp).sort().join(','))
show('temp write', () => { fs.writeFileSync(temp + '/new', 'new'); return fs.readFileSync(temp + '/new', 'utf8') })
show('own', () => fs.readFileSync(own + '/mine', 'utf8'))
show('own write', () => { fs.writeFileSync(own + '/new', 'new'); return 'written' })
show('other', () => fs.readFileSync(other + '/secret', 'utf8'))
show('cache write', () => { fs.writeFileSync(cache + '/planted', 'x'); return 'written' })`
    const [command, args] = sandboxed(
      {
        hiddenPaths: [],
        privateRoot: { dir: base, keep: [own, cache, tempKept] },
        privateTempDirs: [temp],
        readOnlyPaths: [cache],
      },
      process.execPath,
      ['-e', script, base, own, other, cache, temp],
    )
    const run = spawnSync(command, args, { env: { PATH: SANDBOX_PATH }, encoding: 'utf8' })
    assert.equal(run.status, 0, run.stderr)
    assert.deepEqual(run.stdout.trim().split('\n'), [
      'base: cache,own',
      'base write failed: EROFS',
      // Nothing of the host's file, only the way to the kept directory; what it writes is its own.
      'temp: kept',
      'temp write: new',
      'own: mine',
      'own write: written',
      'other failed: ENOENT',
      'cache write failed: EROFS',
    ])
    // The kept directory is the real one; the cache stays as it was.
    assert.equal(readFileSync(join(own, 'new'), 'utf8'), 'new')
    assert.deepEqual(readdirSync(cache), [])
    assert.deepEqual(readdirSync(temp).sort(), ['host', 'kept'])
    rmSync(base, { recursive: true, force: true })
    rmSync(temp, { recursive: true, force: true })
  })

  test('a SIGKILLed owner takes its runs and Chromium with it; a later pool removes the dead runs’ directories only', async () => {
    for (const mode of ['on', 'off'] as const) {
      const workRoot = join(root, `kill-${mode}`)
      const held = holding
      const owner = startOwner(mode, workRoot, [
        `import { test } from '@playwright/test'
test('holds', async ({ page }) => {
  await page.goto(process.env.SITE + '/page')
  // Waits in the test worker, not in Chromium: only the run's own end stops it.
  await fetch(process.env.SITE + '/hold')
})`,
      ])
      const ownerPid = owner.process.pid as number
      assert.equal((await owner.sandbox).sandboxed, mode === 'on')
      while (holding === held) await new Promise((resolve) => setTimeout(resolve, 100))

      const processes = descendantsOf(ownerPid)
      const commands = processes.map(commandLineOf)
      assert.ok(
        commands.some((command) => /^\d+: \S*\/chromium /.test(command)),
        commands.join('\n'),
      )
      assert.ok(
        commands.some((command) => command.includes('browser-host.cjs')),
        commands.join('\n'),
      )
      assert.ok(
        commands.some((command) => /playwright.*cli\.js test/.test(command)),
        commands.join('\n'),
      )
      assert.ok(
        commands.some((command) => command.includes('workerProcessEntry.js')),
        commands.join('\n'),
      )
      // Nothing the owner started has its secret in its environment.
      for (const pid of processes) assert.ok(!environOf(pid).includes(ENV_SECRET), commandLineOf(pid))
      const runDirs = readdirSync(workRoot).filter((name) => name.startsWith(`svc-run-${ownerPid}-`))
      assert.equal(runDirs.length, 1)

      owner.process.kill('SIGKILL')
      await owner.exited
      let left = processes
      for (let i = 0; i < 300 && left.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        left = left.filter(running)
      }
      assert.deepEqual(
        left.map(commandLineOf),
        [],
        `still running ${mode === 'on' ? 'in' : 'without'} the sandbox`,
      )

      // A live process's directory and directories of other names stay.
      const live = `svc-run-${process.pid}-999-0`
      for (const name of [live, 'svc-run-notes', 'other-tool-123']) mkdirSync(join(workRoot, name))
      const before = readdirSync(workRoot).sort()
      assert.ok(before.includes(`svc-browser-${ownerPid}-1-1`), before.join(', '))
      assert.ok(before.includes(runDirs[0] as string), before.join(', '))
      const pool = new PlaywrightPool({ workRoot, sandbox: 'off' })
      await pool.start()
      assert.deepEqual(
        readdirSync(workRoot).sort(),
        before.filter((name) => name !== runDirs[0] && name !== `svc-browser-${ownerPid}-1-1`),
      )
      await pool.close()
    }
  })

  test('SVC_SCRIPT_SANDBOX=on refuses script runs when the sandbox can’t be made; auto warns once and runs them', async () => {
    const workRoot = join(root, 'unhideable')
    mkdirSync(workRoot, { recursive: true })
    const job = { name: 'plain', runLocation: 'local', script: `console.log('ran as ' + process.pid)` }
    const ctx = (pool: PlaywrightPool) => ({
      now: () => new Date(),
      playwright: pool,
      artifactsDir: join(root, 'artifacts-unhideable'),
    })
    // Hiding the directory that holds the runs would break every run: the sandbox can't be made.
    const problem = `${root} can't be hidden from scripts: it holds the run directories (${workRoot})`

    const strict = new PlaywrightPool({ workRoot, sandbox: 'on', hiddenPaths: [root] })
    try {
      for (const result of [
        await runBrowserCheck(job, ctx(strict)),
        await runMultiStepCheck(
          { ...job, script: `import { test } from '@playwright/test'\ntest('t', () => {})` },
          ctx(strict),
        ),
      ]) {
        assert.deepEqual(result.error, {
          type: 'INTERNAL',
          message: `Script checks are refused: SVC_SCRIPT_SANDBOX is on and the sandbox can't be made: ${problem}`,
        })
        assert.equal(result.hasErrors, true)
        assert.deepEqual(result.checkResult.logs, [])
      }
      // No test ran: a check that expects its script to fail doesn't pass on it.
      const inverted = await runBrowserCheck({ ...job, shouldFail: true }, ctx(strict))
      assert.deepEqual([inverted.hasFailures, inverted.error?.type], [true, 'INTERNAL'])
    } finally {
      await strict.close()
    }

    const warnings: string[] = []
    const lenient = new PlaywrightPool({
      workRoot,
      sandbox: 'auto',
      hiddenPaths: [root],
      onWarning: (message) => warnings.push(message),
    })
    try {
      const first = await runBrowserCheck(job, ctx(lenient))
      const second = await runBrowserCheck(job, ctx(lenient))
      for (const result of [first, second]) {
        assert.equal(result.error, null)
        // Not in a PID namespace: the script's pid is an ordinary one, not 2 or 3.
        assert.match(logsOf(result), /^ran as \d+$/)
        assert.ok(Number(logsOf(result).slice('ran as '.length)) > 3, logsOf(result))
      }
      assert.deepEqual(warnings, [
        `Script checks run WITHOUT a sandbox: scripts can read this process's environment and data directory (${problem}). Set SVC_SCRIPT_SANDBOX=off to accept this, or fix the cause.`,
      ])
    } finally {
      await lenient.close()
    }
  })
})

/** A process that exists and isn't a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

function commandLineOf(pid: number): string {
  try {
    return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 300)}`
  } catch {
    return `${pid}: (gone)`
  }
}

function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8')
  } catch {
    return ''
  }
}

test('a path runs need may lie in a hidden one only where the sandbox keeps it', () => {
  const needed = { 'Node.js': '/tmp/svc-checkout/node_modules/node/bin/node' }
  const problem = `/tmp can't be hidden from scripts: it holds Node.js (${needed['Node.js']})`
  assert.equal(hiddenPathProblem(['/tmp'], needed), problem)
  assert.equal(hiddenPathProblem(['/tmp'], needed, ['/tmp/svc-checkout']), null)
  assert.equal(hiddenPathProblem(['/tmp'], needed, ['/tmp/svc-checkout-2']), problem)
  assert.equal(hiddenPathProblem(['/srv/data'], needed), null)
})
