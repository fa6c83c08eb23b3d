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
      check: { frequencyMinutes: 1, runParallel: false, locations: ['local'] },
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

  test('suppression holds the alert back until it ends; a recovery while suppressed is dropped', () => {
    assert.deepEqual(run(['mute', 'failing', 'failing', 'unmute', 'failing', 'passing']), [
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
      '1:ALERT_RECOVERY',
    ])
    assert.deepEqual(run(['failing', 'mute', 'passing', 'unmute', 'passing']), [
      '1:ALERT_FAILURE',
      '2:ALERT_FAILURE',
    ])
    assert.deepEqual(run(['mute', 'failing', 'passing', 'unmute']), [])
  })
})
