/** The pseudo-location whose schedule rows are heartbeat deadlines: every node evaluates them. */
export const HEARTBEAT_LOCATION = 'heartbeat'

const UNIT_MS = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const

export interface HeartbeatSettings {
  period: number
  periodUnit: keyof typeof UNIT_MS
  grace: number
  graceUnit: keyof typeof UNIT_MS
}

export function heartbeatPeriodMs(heartbeat: HeartbeatSettings): number {
  return heartbeat.period * UNIT_MS[heartbeat.periodUnit]
}

/** How long after a ping the next one may arrive before the check fails: period + grace. */
export function heartbeatWindowMs(heartbeat: HeartbeatSettings): number {
  return heartbeatPeriodMs(heartbeat) + heartbeat.grace * UNIT_MS[heartbeat.graceUnit]
}
