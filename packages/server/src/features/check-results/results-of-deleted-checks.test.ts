import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { sql } from 'kysely'
import { heartbeatResultWrite, storeMissedDeadline } from '../../runs/heartbeat-results.ts'
import { claimDueSlots } from '../../runs/schedules.repo.ts'
import { CheckDeletedError, writeResults } from '../../runs/store.ts'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { resolveChecksById } from '../checks/resolve-check.ts'

const SECOND = 1000

/**
 * Results stored while their check is deleted. On PostgreSQL the two run at once, in the order each
 * test forces (see inTurnWhileHeld): the result batch and the deletion lock their rows in one order
 * (the checks first), so one waits for the other and neither is ended to break a deadlock.
 */
for (const engine of testEngines()) {
  describe(`results stored while their check is deleted on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-24T09:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    /** A pinged heartbeat whose deadline passed, claimed by the scheduler `owner`, as it stores misses. */
    async function claimedMiss(name: string, owner: string) {
      const created = await t.call({
        method: 'POST',
        url: '/v1/checks/heartbeat',
        payload: { name, heartbeat: { period: 1, periodUnit: 'minutes', grace: 30, graceUnit: 'seconds' } },
      })
      assert.equal(created.statusCode, 201, created.body)
      const check = json(created)
      assert.equal(
        (await t.app.inject({ method: 'GET', url: new URL(check.pingUrl).pathname })).statusCode,
        200,
      )
      nowMs += 91 * SECOND
      const claim = { owner, nowMs, leaseMs: 30_000, locations: ['heartbeat'], limit: 1000 }
      const slot = (await claimDueSlots(t.ctx, claim)).find((claimed) => claimed.checkId === check.id)
      assert.ok(slot)
      const resolved = (await resolveChecksById(t.ctx, [check.id])).get(check.id)
      assert.ok(resolved)
      const store = () =>
        storeMissedDeadline(t.ctx, resolved, slot, owner, nowMs + 60 * SECOND).then(
          (stored) => (stored ? 'stored' : 'not stored'),
          outcomeOfFailure,
        )
      return { id: check.id as string, resolved, store }
    }
    const outcomeOfFailure = (error: unknown) =>
      error instanceof CheckDeletedError ? 'check deleted' : `failed: ${(error as Error).message}`
    const remove = (checkId: string) => async () =>
      String((await t.call({ method: 'DELETE', url: `/v1/checks/${checkId}` })).statusCode)
    const resultCount = async (checkId: string) =>
      (await t.store.db.selectFrom('check_results').select('id').where('check_id', '=', checkId).execute())
        .length
    type Tx = Parameters<Parameters<typeof inTurnWhileHeld>[1]>[0]

    test('a missed deadline being stored when its check is deleted: stored, then the deletion is 204', async () => {
      const miss = await claimedMiss('missed, then deleted', 'node-miss-first')
      // The batch has locked what it locks before it reads its lease, and waits there; then the deletion.
      const holdLease = (tx: Tx) =>
        sql`select 1 from check_schedules where check_id = ${miss.id} for update`.execute(tx)
      const answers = await inTurnWhileHeld(t.ctx, holdLease, [miss.store, remove(miss.id)])
      assert.deepEqual(answers, ['stored', '204'])
      assert.equal(await resultCount(miss.id), 0)
      assert.equal((await t.call({ method: 'GET', url: `/v1/checks/${miss.id}` })).statusCode, 404)
    })

    test('a check being deleted when its missed deadline is stored: 204, and the miss is not stored', async () => {
      const miss = await claimedMiss('deleted, then missed', 'node-delete-first')
      // The deletion has locked the check and waits where it deletes what names it; then the batch.
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('check_tags'), [remove(miss.id), miss.store])
      assert.deepEqual(answers, ['204', 'check deleted'])
      assert.equal(await resultCount(miss.id), 0)
    })

    test('a batch holding a result of a deleted check stores the others; that one is refused as deleted', async () => {
      const gone = await claimedMiss('gone before its batch', 'node-gone')
      const kept = await claimedMiss('kept in the batch', 'node-kept')
      assert.equal(await remove(gone.id)(), '204')
      const ping = (check: typeof gone) =>
        heartbeatResultWrite(t.ctx, check.resolved.row, { kind: 'RECEIVED', method: 'GET' }, check.resolved)
      const outcomes = await Promise.all(
        writeResults(t.ctx, [ping(gone), ping(kept)]).map((stored) =>
          stored.then((s) => (s ? 'stored' : 'not stored'), outcomeOfFailure),
        ),
      )
      assert.deepEqual(outcomes, ['check deleted', 'stored'])
      assert.equal(await resultCount(kept.id), 2)
    })
  })
}
