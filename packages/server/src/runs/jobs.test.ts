import assert from 'node:assert/strict'
import { test } from 'node:test'
import { dueMsOfSlotKey, jobIdOf, slotKeyOf } from './jobs.ts'

test('slot keys start with the due time, so later slots sort after earlier ones whatever the check', () => {
  const early = slotKeyOf({ checkId: 'ffff-check', location: 'eu-west-1', dueMs: 1_700_000_000_000 })
  const late = slotKeyOf({ checkId: '0000-check', location: 'local', dueMs: 1_700_000_060_000 })
  assert.equal(early, '1700000000000:ffff-check:eu-west-1')
  assert.ok(early < late)
  assert.equal(dueMsOfSlotKey(late), 1_700_000_060_000)
  assert.equal(dueMsOfSlotKey(jobIdOf({ slotKey: late, attempt: 3 })), 1_700_000_060_000)
  assert.equal(jobIdOf({ slotKey: late, attempt: 3 }), `${late}#3`)
  assert.equal(dueMsOfSlotKey('trigger:6b1f0f5e-2a4c-4a57-9d7e-1f4f1c7d8e90'), undefined)
})
