import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { PlaywrightPool } from '../playwright/pool.ts'
import { ApiScriptRun } from './api-scripts.ts'

const REQUEST = { method: 'GET', url: 'http://127.0.0.1:9/', headers: {}, queryParameters: {}, body: '' }
const headerOf = (answer: Awaited<ReturnType<ApiScriptRun['setup']>>) =>
  'value' in answer ? answer.value.headers['x-run'] : answer.error.message
const scripts = (source: string) => ({
  setup: [{ name: 'localSetupScript', source }],
  tearDown: [],
  environment: {},
})

describe('API check scripts share the script pool', () => {
  const workRoot = mkdtempSync(join(tmpdir(), 'svc-api-scripts-'))
  const pool = new PlaywrightPool({ workRoot, sandbox: 'off', concurrency: 1 })
  after(async () => {
    await pool.close()
    rmSync(workRoot, { recursive: true, force: true })
  })

  test('a second run’s scripts wait for the first run’s process to end when the pool runs one at a time', async () => {
    const first = new ApiScriptRun(scripts("request.headers['x-run'] = 'first'"), { pool })
    const second = new ApiScriptRun(scripts("request.headers['x-run'] = 'second'"), { pool })
    try {
      const firstSetup = await first.setup(REQUEST)
      assert.equal(headerOf(firstSetup), 'first')
      let secondDone = false
      const secondSetup = second.setup(REQUEST).then((answer) => {
        secondDone = true
        return answer
      })
      // The first run still holds the pool's only slot: its process lives until it is closed.
      await new Promise((wake) => setTimeout(wake, 300))
      assert.equal(secondDone, false)
      first.close()
      assert.equal(headerOf(await secondSetup), 'second')
    } finally {
      first.close()
      second.close()
    }
  })
})
