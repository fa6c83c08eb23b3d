import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { testEngines } from '@svc/db/testing'
import { browserTestsSkipReason } from '@svc/runner/testing'
import { deploymentEnv, type ServerProcess, startServerProcess } from '../testing/server-process.ts'

const skip = browserTestsSkipReason()

/** Outside /tmp, which scripts don't see at all: the data directory must be hidden on its own. */
const LOCAL_TMP = fileURLToPath(new URL('../../.tmp/', import.meta.url))

const READ_SERVER_FILES = `const fs = require('node:fs')
for (const path of ['/proc/' + process.env.SERVER_PID + '/environ', process.env.DATA_DIR + '/private.txt', process.env.DATA_DIR]) {
  try {
    const text = fs.statSync(path).isDirectory() ? fs.readdirSync(path).join(',') : fs.readFileSync(path, 'utf8')
    console.log('read ' + path + ': ' + text)
  } catch (error) {
    console.log('failed ' + path + ': ' + error.code)
  }
}`

/** A real server process: its scripts run in the sandbox with SVC_DATA_DIR hidden. */
for (const engine of testEngines()) {
  describe(`the script sandbox of a server process on ${engine.engine}`, { skip }, () => {
    test('a browser check reads neither the server’s environment nor its data directory', async () => {
      const store = await engine.createUrl()
      const adminToken = `admin-${randomBytes(16).toString('hex')}`
      const env: Record<string, string> = {
        ...deploymentEnv(store.url),
        SVC_SCRIPT_SANDBOX: 'on',
        SVC_ADMIN_TOKEN: adminToken,
      }
      mkdirSync(LOCAL_TMP, { recursive: true })
      // On SQLite the store is then a new one in this directory.
      const dataDir = mkdtempSync(join(LOCAL_TMP, 'svc-data-'))
      env.SVC_DATA_DIR = dataDir
      const dataSecret = `data-${randomBytes(8).toString('hex')}`
      writeFileSync(join(dataDir, 'private.txt'), dataSecret)
      let server: ServerProcess | undefined
      try {
        server = await startServerProcess(env)
        const call = async (method: string, path: string, body?: unknown) => {
          const response = await fetch(`${server?.url}${path}`, {
            method,
            headers: {
              authorization: `Bearer ${env.SVC_BOOTSTRAP_API_KEY}`,
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
            body: body ? JSON.stringify(body) : undefined,
          })
          return { status: response.status, body: (await response.json()) as any }
        }
        const check = await call('POST', '/v1/checks/browser', {
          name: 'nosy',
          script: READ_SERVER_FILES,
          doubleCheck: false,
          environmentVariables: [
            { key: 'SERVER_PID', value: String(server.child.pid) },
            { key: 'DATA_DIR', value: dataDir },
          ],
        })
        assert.equal(check.status, 201, JSON.stringify(check.body))
        const result = await call('POST', `/v1/checks/${check.body.id}/trigger`)
        assert.equal(result.status, 200, JSON.stringify(result.body))
        const logs = result.body.browserCheckResult.logs.map((entry: { text: string }) => entry.text)
        // Outside /tmp and the work root (where it would not be there at all), the data dir is covered
        // by an unreadable mount of its own.
        assert.deepEqual(logs, [
          `failed /proc/${server.child.pid}/environ: ENOENT`,
          `failed ${dataDir}/private.txt: EACCES`,
          `failed ${dataDir}: EACCES`,
        ])
        assert.equal(result.body.hasFailures, false)
      } finally {
        await server?.stop('SIGTERM')
        await store.dispose()
        rmSync(dataDir, { recursive: true, force: true })
      }
    })
  })
}
