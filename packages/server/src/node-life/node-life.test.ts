import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, type TestApp } from '../testing/test-app.ts'
import { loadOrCreateNodeId } from './node-id.ts'
import { beginNodeLife, LIFE_TTL_MS, type NodeLife } from './node-life.ts'
import { insertLife } from './node-lives.repo.ts'

const NOW_MS = Date.parse('2026-11-29T08:00:00Z')

test('the node id is kept in the data directory across starts, unless SVC_NODE_ID names it', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-node-id-')), 'data')
  try {
    const made = loadOrCreateNodeId(undefined, dataDir)
    assert.match(made, /^[0-9a-f-]{36}$/)
    assert.equal(loadOrCreateNodeId(undefined, dataDir), made)
    assert.equal(readFileSync(join(dataDir, 'node-id'), 'utf8'), `${made}\n`)
    assert.equal(loadOrCreateNodeId('svc-2', dataDir), 'svc-2')
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true })
  }
})

for (const engine of testEngines()) {
  describe(`node lives on ${engine.engine}`, () => {
    let t: TestApp
    const lives: NodeLife[] = []
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(NOW_MS) } })
    })
    after(async () => {
      for (const life of lives) await life.stop()
      await t.close()
    })

    /** Begins a life of `nodeId` and answers the lives it took back. */
    const begin = async (nodeId: string, running: number[] = []) => {
      const takenBack: string[] = []
      const life = await beginNodeLife(t.ctx, {
        nodeId,
        takeBack: async (lifeId) => {
          takenBack.push(lifeId)
        },
        lost: () => assert.fail('no life is lost here'),
        log: { error: () => assert.fail('no error here') },
        isRunning: (pid) => running.includes(pid),
      })
      lives.push(life)
      return { life, takenBack }
    }
    const record = (lifeId: string, nodeId: string, at: { host?: string; pid: number; untilMs: number }) =>
      insertLife(t.ctx, {
        life_id: lifeId,
        node_id: nodeId,
        hostname: at.host ?? hostname(),
        pid: at.pid,
        alive_until_ms: at.untilMs,
      })

    test('a life of this machine whose process is gone is taken back at once; a running one, however late, never', async () => {
      await record('crashed', 'node-a', { pid: 101, untilMs: NOW_MS + LIFE_TTL_MS })
      // Late to say it is alive, but its process runs: not dead.
      await record('sibling', 'node-a', { pid: 102, untilMs: NOW_MS - LIFE_TTL_MS })
      const { takenBack } = await begin('node-a', [102])
      assert.deepEqual(takenBack, ['crashed'])
      // Taken back once: the next life finds only the running sibling (and the life before it).
      const next = await begin('node-a', [102, process.pid])
      assert.deepEqual(next.takenBack, [])
    })

    test('a life of another machine is taken back only once it has said nothing for the life TTL', async () => {
      await record('silent', 'node-b', { host: 'elsewhere', pid: 7, untilMs: NOW_MS - 1 })
      await record('talking', 'node-b', { host: 'elsewhere', pid: 8, untilMs: NOW_MS })
      const { takenBack } = await begin('node-b')
      assert.deepEqual(takenBack, ['silent'])
    })

    test("another node's lives are never taken back, however dead", async () => {
      await record('other-node', 'node-c', { pid: 103, untilMs: NOW_MS - 60_000 })
      const { takenBack } = await begin('node-d')
      assert.deepEqual(takenBack, [])
    })

    test('a life that stops is taken back by the next one at once', async () => {
      const first = await begin('node-e', [])
      await first.life.stop()
      const { takenBack } = await begin('node-e', [process.pid])
      assert.deepEqual(takenBack, [first.life.id])
    })
  })
}
