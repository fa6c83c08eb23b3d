import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DEFAULT_ALERT_SETTINGS } from '../accounts/accounts.service.ts'
import {
  type AlertState,
  emptyAlertState,
  type FoldInput,
  foldAlertState,
  type RunStatus,
} from './alert-state.ts'

const channels = [
  {
    id: 1,
    sendFailure: true,
    sendRecovery: true,
    sendDegraded: true,
    sslExpiry: false,
    sslExpiryThreshold: 30,
  },
  {
    id: 2,
    sendFailure: true,
    sendRecovery: false,
    sendDegraded: false,
    sslExpiry: false,
    sslExpiryThreshold: 30,
  },
]

/** Folds a sequence of run statuses a minute apart; answers every alert as "channel:type". */
function run(statuses: (RunStatus | 'mute' | 'unmute')[], extra: Partial<FoldInput> = {}) {
  let state: AlertState = emptyAlertState()
  let nowMs = Date.parse('2026-01-01T00:00:00Z')
  let suppressed = false
  const alerts: string[] = []
  for (const [index, status] of statuses.entries()) {
    if (status === 'mute' || status === 'unmute') {
      suppressed = status === 'mute'
      continue
    }
    nowMs += 60_000
    const out = foldAlertState(state, {
      result: {
        id: `r${index}`,
        startedAt: new Date(nowMs).toISOString(),
        location: 'local',
        status,
        sslDaysRemaining: null,
      },
      now: new Date(nowMs),
      settings: DEFAULT_ALERT_SETTINGS,
      check: { periodMs: 60_000, runParallel: false, locations: ['local'] },
      suppressed,
      channels,
      ...extra,
    })
    state = out.state
    alerts.push(...out.alerts.map((a) => `${a.channelId}:${a.alertType}`))
  }
  return alerts
}

describe('alert state fold', () => {
  test('failing → degraded is a recovery, then a degraded alert; degraded → failing escalates silently', () => {
    assert.deepEqual(run(['failing', 'degraded', 'passing']), [
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
      '1:ALERT_DEGRADED',
      '1:ALERT_DEGRADED_RECOVERY',
    ])
    assert.deepEqual(run(['degraded', 'failing', 'passing']), [
      '1:ALERT_DEGRADED',
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
    ])
  })

  test('a channel told of a degradation that turned into a failure it never heard of hears the degraded recovery', () => {
    const degradedOnly = { ...channels[0], id: 3, sendFailure: false } as (typeof channels)[number]
    const withDegradedOnly = { channels: [...channels, degradedOnly] }
    assert.deepEqual(run(['degraded', 'failing', 'passing'], withDegradedOnly), [
      '1:ALERT_DEGRADED',
      '3:ALERT_DEGRADED',
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
      '3:ALERT_DEGRADED_RECOVERY',
    ])
    // Back to degraded: the failure channels recover, the degraded-only one is not told twice.
    assert.deepEqual(run(['degraded', 'failing', 'degraded', 'passing'], withDegradedOnly), [
      '1:ALERT_DEGRADED',
      '3:ALERT_DEGRADED',
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
      '1:ALERT_DEGRADED',
      '3:ALERT_DEGRADED_RECOVERY',
      '1:ALERT_DEGRADED_RECOVERY',
    ])
    // A failure that never reached its threshold still ends the degradation for the channel told of it.
    const twoFailedRuns = {
      ...withDegradedOnly,
      settings: {
        ...DEFAULT_ALERT_SETTINGS,
        runBasedEscalation: { failedRunThreshold: 2 },
      },
    }
    assert.deepEqual(run(['degraded', 'degraded', 'failing', 'passing'], twoFailedRuns), [
      '1:ALERT_DEGRADED',
      '3:ALERT_DEGRADED',
      '1:ALERT_DEGRADED_RECOVERY',
      '3:ALERT_DEGRADED_RECOVERY',
    ])
  })

  test('a flapping check alerts once per episode; a recovery only follows a sent alert', () => {
    assert.deepEqual(run(['passing', 'passing']), [])
    assert.deepEqual(run(['failing', 'failing', 'failing', 'passing', 'passing', 'failing', 'passing']), [
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
    ])
  })

  test('suppression holds the alert back until it ends, and the recovery of an alert that went out', () => {
    assert.deepEqual(run(['mute', 'failing', 'failing', 'unmute', 'failing', 'passing']), [
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
    ])
    assert.deepEqual(run(['failing', 'mute', 'passing', 'unmute', 'passing']), [
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
    ])
    assert.deepEqual(run(['degraded', 'mute', 'passing', 'passing', 'unmute', 'passing']), [
      '1:ALERT_DEGRADED',
      '1:ALERT_DEGRADED_RECOVERY',
    ])
    // Nothing went out, so nothing recovers.
    assert.deepEqual(run(['mute', 'failing', 'passing', 'unmute', 'passing']), [])
  })

  test('a recovery held back by a suppression goes only if it still holds when the suppression ends', () => {
    // Failing again: the channels hear of the new failure, not that the old one ended.
    assert.deepEqual(run(['failing', 'mute', 'passing', 'failing', 'unmute', 'failing', 'passing']), [
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
    ])
    // Degraded: the failure is over, the degradation is not.
    assert.deepEqual(run(['failing', 'mute', 'degraded', 'unmute', 'degraded', 'passing']), [
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
      '1:ALERT_DEGRADED',
      '1:ALERT_DEGRADED_RECOVERY',
    ])
    // A channel that stopped taking recoveries meanwhile gets none.
    assert.deepEqual(
      run(['failing', 'mute', 'passing', 'unmute', 'passing'], {
        channels: channels.map((c) => ({ ...c, sendRecovery: false })),
      }),
      ['1:ALERT_FAILURE', '2:ALERT_FAILURE'],
    )
  })

  test('a held-back recovery goes out on the first clock tick after the suppression, without a new result', () => {
    const input = (nowMs: number, status: RunStatus | null, suppressed: boolean): FoldInput => ({
      result: status && {
        id: `r${nowMs}`,
        startedAt: new Date(nowMs).toISOString(),
        location: 'local',
        status,
        sslDaysRemaining: null,
      },
      now: new Date(nowMs),
      settings: DEFAULT_ALERT_SETTINGS,
      check: { periodMs: 600_000, runParallel: false, locations: ['local'] },
      suppressed,
      channels,
    })
    const start = Date.parse('2026-01-01T00:00:00Z')
    const failed = foldAlertState(emptyAlertState(), input(start, 'failing', false))
    const recovered = foldAlertState(failed.state, input(start + 600_000, 'passing', true))
    assert.deepEqual(recovered.alerts, [])
    assert.equal(recovered.wakeAtMs, start + 660_000, 'it looks again a minute later')
    const stillMuted = foldAlertState(recovered.state, input(start + 660_000, null, true))
    assert.deepEqual([stillMuted.alerts, stillMuted.wakeAtMs], [[], start + 720_000])
    const unmuted = foldAlertState(stillMuted.state, input(start + 720_000, null, false))
    assert.deepEqual(unmuted.alerts, [{ channelId: 1, alertType: 'ALERT_RECOVERY' }])
    assert.equal(unmuted.wakeAtMs, null)
    assert.equal(unmuted.state.owedRecoveries, undefined)
  })
})
