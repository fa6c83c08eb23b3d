import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, test } from 'node:test'
import { promisify } from 'node:util'
import { testEngines } from '@svc/db/testing'
import { loadConfig } from '../config.ts'
import {
  deploymentEnv,
  type ServerProcess,
  startServerProcess,
  testDataDir,
} from '../testing/server-process.ts'
import { BackupError, backupStore } from './backup.ts'

const BACKUP_MAIN = resolve(import.meta.dirname, '../backup-main.ts')

/** `npm run backup -- <target>` with `env`; resolves with its exit code and output. */
async function runBackup(env: Record<string, string>, target: string) {
  const result = await promisify(execFile)(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', BACKUP_MAIN, target],
    { env: { ...process.env, ...env } },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      output: error.stdout + error.stderr,
    }),
  )
  return result
}

/** Creates variables W0, W1, … through the API until stopped; `acknowledged` holds the keys answered 201. */
function writeLoad(server: ServerProcess, key: string, writers: number) {
  const acknowledged: string[] = []
  let next = 0
  let stopped = false
  const write = async () => {
    while (!stopped) {
      const name = `W${next++}`
      const response = await fetch(`${server.url}/v1/variables`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ key: name, value: `value of ${name}`, secret: next % 2 === 0 }),
      })
      await response.arrayBuffer()
      if (response.status === 201) acknowledged.push(name)
    }
  }
  const running = Promise.all(Array.from({ length: writers }, write))
  return {
    acknowledged,
    async stop() {
      stopped = true
      await running
    },
  }
}

for (const { engine, createUrl } of testEngines()) {
  describe(`npm run backup on ${engine}`, () => {
    if (engine === 'postgres') {
      test('refuses, pointing to pg_dump', async () => {
        const { url, dispose } = await createUrl()
        try {
          const { code, output } = await runBackup(deploymentEnv(url), join(testDataDir(), 'copy.db'))
          assert.equal(code, 1)
          assert.match(
            output,
            /^svc backup: the store is PostgreSQL \(DATABASE_URL\): back it up with pg_dump/,
          )
        } finally {
          await dispose()
        }
      })
      return
    }

    test('copies the store while a server writes to it; a server started on the copy has every write acknowledged before', async () => {
      const { url, dispose } = await createUrl()
      const env = deploymentEnv(url)
      const restoredDir = testDataDir()
      const target = join(testDataDir(), 'svc-backup.db')
      let server: ServerProcess | undefined
      let restored: ServerProcess | undefined
      try {
        server = await startServerProcess(env)
        const load = writeLoad(server, env.SVC_BOOTSTRAP_API_KEY, 4)
        while (load.acknowledged.length < 40) await new Promise((tick) => setImmediate(tick))
        const before = [...load.acknowledged]
        const backup = await runBackup(env, target)
        const during = load.acknowledged.length - before.length
        await load.stop()
        assert.equal(backup.code, 0, backup.output)
        assert.match(backup.output, /^svc: backup of .*svc\.db written to .*svc-backup\.db \(/)
        assert.match(backup.output, /the encryption key in SVC_ENCRYPTION_KEY/)
        assert.match(backup.output, /the artifacts directory .*artifacts/)
        // No temporary file is left beside the copy.
        assert.deepEqual(readdirSync(join(target, '..')), ['svc-backup.db'])
        await server.stop()

        copyFileSync(target, join(restoredDir, 'svc.db'))
        restored = await startServerProcess({ ...env, SVC_DATA_DIR: restoredDir })
        const kept = new Map<string, { key: string; value: string; secret: boolean }>()
        for (let page = 1; ; page++) {
          const response: Response = await fetch(`${restored.url}/v1/variables?limit=100&page=${page}`, {
            headers: { authorization: `Bearer ${env.SVC_BOOTSTRAP_API_KEY}` },
          })
          assert.equal(response.status, 200)
          const variables = (await response.json()) as { key: string; value: string; secret: boolean }[]
          for (const variable of variables) kept.set(variable.key, variable)
          if (variables.length < 100) break
        }
        const missing = before.filter((name) => !kept.has(name))
        assert.deepEqual(missing, [], `${during} writes were acknowledged during the backup`)
        const plain = before.find((name) => kept.get(name)?.secret === false)
        assert.ok(plain)
        assert.equal(kept.get(plain)?.value, `value of ${plain}`)
        assert.ok(before.some((name) => kept.get(name)?.secret === true))
      } finally {
        await server?.stop('SIGKILL')
        await restored?.stop('SIGKILL')
        await dispose()
      }
    })

    test('refuses a missing store, a target that exists, and no target, with the reason', async () => {
      const dataDir = testDataDir()
      const config = loadConfig({ SVC_DATA_DIR: dataDir })
      assert.throws(
        () => backupStore(config, join(dataDir, 'copy.db')),
        new BackupError(
          `there is no store at ${join(dataDir, 'svc.db')}: set SVC_DATA_DIR to the data directory of the server to back up`,
        ),
      )
      writeFileSync(join(dataDir, 'svc.db'), '')
      writeFileSync(join(dataDir, 'taken.db'), 'x')
      assert.throws(
        () => backupStore(config, join(dataDir, 'taken.db')),
        new BackupError(`${join(dataDir, 'taken.db')} exists already: name a new file`),
      )
      const usage = await runBackup({ SVC_DATA_DIR: dataDir }, '')
      assert.equal(usage.code, 1)
      assert.match(usage.output, /^svc backup: usage: npm run backup -- <file>/)
      assert.ok(!existsSync(join(dataDir, 'copy.db')))
    })
  })
}
