import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, type TestApp } from '../../testing/test-app.ts'
import * as occurrences from './maintenance-occurrences.repo.ts'
import * as windows from './maintenance-windows.repo.ts'

const H = 3_600_000
const BASE = Date.parse('2026-06-01T00:00:00.000Z')
const iso = (ms: number) => new Date(ms).toISOString()

// The alert fold filters an account's windows and changed occurrences in memory (inMaintenance, through
// fold-reads.ts); the status pages ask the store. Both must pick the same rows at every instant.
for (const engine of testEngines()) {
  describe(`maintenance rows picked in memory on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    test('startedBy and covering pick what windowsStartedBy and occurrencesCovering do', async () => {
      const window = (name: string, startH: number, endH: number, repeat: [string, number | null] | null) =>
        windows.insertWindow(t.ctx, {
          account_id: t.owner.accountId,
          name,
          tags: JSON.stringify([name]),
          starts_at: iso(BASE + startH * H),
          ends_at: iso(BASE + endH * H),
          repeat_unit: repeat?.[0] ?? null,
          repeat_interval: repeat ? 1 : null,
          repeat_ends_at: repeat?.[1] == null ? null : iso(BASE + repeat[1] * H),
          timezone: null,
          history_from: iso(BASE),
          created_at: iso(BASE),
          updated_at: iso(BASE),
        })
      await window('once', 2, 4, null)
      const daily = await window('daily', 1, 2, ['DAY', null])
      await window('daily-until', 3, 5, ['DAY', 50])
      await window('later', 30, 31, null)
      // Its second day moved from 25–26 h to 27–29 h; its third cancelled.
      await occurrences.upsertOccurrence(t.ctx, {
        window_id: daily.id,
        occurrence: 1,
        account_id: t.owner.accountId,
        original_starts_at: iso(BASE + 25 * H),
        original_ends_at: iso(BASE + 26 * H),
        starts_at: iso(BASE + 27 * H),
        ends_at: iso(BASE + 29 * H),
        status: null,
        created_at: iso(BASE),
        updated_at: iso(BASE),
      })
      await occurrences.upsertOccurrence(t.ctx, {
        window_id: daily.id,
        occurrence: 2,
        account_id: t.owner.accountId,
        original_starts_at: iso(BASE + 49 * H),
        original_ends_at: iso(BASE + 50 * H),
        starts_at: iso(BASE + 49 * H),
        ends_at: iso(BASE + 50 * H),
        status: 'CANCELLED',
        created_at: iso(BASE),
        updated_at: iso(BASE),
      })
      const all = await windows.windowsOfAccount(t.ctx, t.owner.accountId)
      const changed = await occurrences.occurrencesOfAccount(t.ctx, t.owner.accountId)
      let compared = 0
      // Every half hour over three days, and on each boundary exactly.
      for (let halfHours = -2; halfHours <= 150; halfHours++) {
        const atIso = iso(BASE + (halfHours * H) / 2)
        const fromStore = await windows.windowsStartedBy(t.ctx, t.owner.accountId, atIso)
        assert.deepEqual(
          all
            .filter((w) => windows.startedBy(w, atIso))
            .map((w) => w.name)
            .sort(),
          fromStore.map((w) => w.name).sort(),
          `windows at ${atIso}`,
        )
        const coveringFromStore = await occurrences.occurrencesCovering(t.ctx, t.owner.accountId, atIso)
        assert.deepEqual(
          changed
            .filter((o) => occurrences.covering(o, atIso))
            .map((o) => o.occurrence)
            .sort(),
          coveringFromStore.map((o) => o.occurrence).sort(),
          `changed occurrences at ${atIso}`,
        )
        compared += fromStore.length + coveringFromStore.length
      }
      assert.ok(compared > 100, `rows compared: ${compared}`)
    })
  })
}
