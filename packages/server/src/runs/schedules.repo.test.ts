import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, type TestApp } from '../testing/test-app.ts'
import {
  claimDueSlots,
  listSchedule,
  moveSlots,
  nextDueMs,
  renewLeases,
  replaceSchedule,
} from './schedules.repo.ts'

for (const engine of testEngines()) {
  describe(`schedule claims on ${engine.engine}`, () => {
    let t: TestApp
    const checkIds: string[] = []
    before(async () => {
      t = await createTestApp(engine)
      for (let i = 0; i < 6; i++) {
        const created = await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: `c${i}`, request: { url: 'http://127.0.0.1/' } },
        })
        checkIds.push(created.json().id)
      }
    })
    after(() => t.close())

    test('due slots are leased once, expired leases are taken over, completion moves the slot', async () => {
      await Promise.all(
        checkIds.map((id, i) =>
          replaceSchedule(t.ctx, id, [
            { location: 'local', nextDueMs: 1_000 + i },
            { location: 'eu-west-1', nextDueMs: 1_000 + i },
          ]),
        ),
      )
      const claim = (owner: string, nowMs: number, locations = ['local']) =>
        claimDueSlots(t.ctx, { owner, nowMs, leaseMs: 30_000, locations, limit: 4 })

      assert.deepEqual(await claim('a', 999), [], 'nothing is due yet')
      const [first, second] = await Promise.all([claim('a', 2_000), claim('b', 2_000)])
      const claimed = [...(first ?? []), ...(second ?? [])]
      assert.equal(claimed.length, 6, 'every due local slot is claimed exactly once')
      assert.equal(new Set(claimed.map((s) => s.checkId)).size, 6)
      assert.ok(claimed.every((s) => s.location === 'local'))
      assert.deepEqual(await claim('c', 3_000), [], 'leased slots are not claimed again')
      assert.equal(await nextDueMs(t.ctx, ['local']), 32_000, 'the next claimable row: a lease running out')
      assert.equal(await nextDueMs(t.ctx, ['eu-west-1']), 1_000)

      const done = claimed[0]!
      const owner = first?.some((s) => s.checkId === done.checkId) ? 'a' : 'b'
      await moveSlots(t.ctx, [
        { checkId: done.checkId, location: 'local', leaseOwner: 'intruder', nextDueMs: 99_999 },
      ])
      const untouched = (await listSchedule(t.ctx, done.checkId)).find((r) => r.location === 'local')
      assert.deepEqual(
        [untouched?.lease_owner, Number(untouched?.leased_due_ms), Number(untouched?.next_due_ms)],
        [owner, done.dueMs, 32_000],
        'only the lease holder completes a slot',
      )
      await moveSlots(t.ctx, [
        { checkId: done.checkId, location: 'local', leaseOwner: owner, nextDueMs: 61_000 },
      ])

      const takenOver = [...(await claim('d', 2_000 + 30_001)), ...(await claim('e', 2_000 + 30_001))]
      const remaining = claimed.filter((slot) => slot.checkId !== done.checkId)
      assert.deepEqual(
        takenOver.map((slot) => `${slot.checkId}@${slot.dueMs}`).sort(),
        remaining.map((slot) => `${slot.checkId}@${slot.dueMs}`).sort(),
        'expired leases are claimed again, each for the slot it was due for',
      )
    })

    test('a renewed lease holds its slot past the first lease end; the longest-due slots go first', async () => {
      const [a, b, c] = checkIds as [string, string, string]
      await replaceSchedule(t.ctx, a, [{ location: 'local', nextDueMs: 300 }])
      await replaceSchedule(t.ctx, b, [{ location: 'local', nextDueMs: 100 }])
      await replaceSchedule(t.ctx, c, [{ location: 'local', nextDueMs: 200 }])
      const claim = (owner: string, nowMs: number, limit: number) =>
        claimDueSlots(t.ctx, { owner, nowMs, leaseMs: 1_000, locations: ['local'], limit })
      assert.deepEqual(
        (await claim('a', 1_000, 2))
          .map((slot) => [slot.checkId, slot.dueMs])
          .sort((x, y) => Number(x[1]) - Number(y[1])),
        [
          [b, 100],
          [c, 200],
        ],
      )
      await renewLeases(t.ctx, 'a', 5_000)
      assert.deepEqual(
        (await claim('b', 3_000, 10)).map((slot) => [slot.checkId, slot.dueMs]),
        [[a, 300]],
        'renewed leases are not taken over',
      )
      assert.equal(await nextDueMs(t.ctx, ['local']), 4_000)
      assert.deepEqual(
        (await claim('c', 5_001, 10)).map((slot) => [slot.checkId, slot.dueMs]).sort(),
        [
          [a, 300],
          [b, 100],
          [c, 200],
        ].sort(),
      )
    })

    test('a batch of slot moves: completions only under their lease, deadlines set or created', async () => {
      const [a, b, c, d] = checkIds as [string, string, string, string]
      for (const id of [a, b, c]) await replaceSchedule(t.ctx, id, [{ location: 'local', nextDueMs: 500 }])
      await replaceSchedule(t.ctx, d, [])
      const leased = await claimDueSlots(t.ctx, {
        owner: 'owner',
        nowMs: 1_000,
        leaseMs: 30_000,
        locations: ['local'],
        limit: 10,
      })
      assert.deepEqual(leased.map((slot) => slot.checkId).sort(), [a, b, c].sort())

      await moveSlots(t.ctx, [
        { checkId: a, location: 'local', nextDueMs: 60_500, leaseOwner: 'owner' },
        { checkId: b, location: 'local', nextDueMs: 60_500, leaseOwner: 'someone else' },
        { checkId: c, location: 'local', nextDueMs: 60_500, leaseOwner: 'owner' },
        // A deadline: set whatever the lease, and the lease released; created where there was no slot.
        { checkId: c, location: 'heartbeat', nextDueMs: 7_000 },
        { checkId: d, location: 'heartbeat', nextDueMs: 8_000 },
        { checkId: d, location: 'heartbeat', nextDueMs: 9_000 },
      ])
      const slotsOf = async (id: string) =>
        (await listSchedule(t.ctx, id))
          .map((row) => [row.location, Number(row.next_due_ms), row.lease_owner, row.leased_due_ms])
          .sort()
      assert.deepEqual(await slotsOf(a), [['local', 60_500, null, null]])
      assert.deepEqual(
        (await slotsOf(b)).map(([location, dueMs, owner, leasedDueMs]) => [
          location,
          dueMs,
          owner,
          Number(leasedDueMs),
        ]),
        [['local', 31_000, 'owner', 500]],
        'another owner cannot complete it: it stays leased until 31,000 for its slot due at 500',
      )
      assert.deepEqual(await slotsOf(c), [
        ['heartbeat', 7_000, null, null],
        ['local', 60_500, null, null],
      ])
      assert.deepEqual(await slotsOf(d), [['heartbeat', 9_000, null, null]], 'the last move of a slot wins')

      await moveSlots(t.ctx, [{ checkId: b, location: 'local', nextDueMs: 61_000, leaseOwner: 'owner' }])
      assert.deepEqual(
        await slotsOf(b),
        [['local', 61_000, null, null]],
        'a single completion under its lease',
      )
    })

    test('deleting a check removes its schedule at once', async () => {
      const id = checkIds[5]!
      await t.call({ method: 'DELETE', url: `/v1/checks/${id}` })
      assert.deepEqual(await listSchedule(t.ctx, id), [])
    })
  })
}
