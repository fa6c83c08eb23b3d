import { HeartbeatMonitor } from '@svc/cli'

/** The nightly order export pings this check when it finishes; it alerts when a night passes without. */
new HeartbeatMonitor('nightly-export', {
  name: 'Nightly order export',
  heartbeat: { period: 1, periodUnit: 'days', grace: 2, graceUnit: 'hours' },
})
