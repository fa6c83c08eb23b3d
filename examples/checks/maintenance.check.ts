import { MaintenanceWindow } from '@svc/cli'

/** The weekly release window: the shop's checks don't alert on Tuesday mornings while it deploys. */
new MaintenanceWindow('weekly-release', {
  name: 'Weekly release',
  tags: ['shop', 'api'],
  startsAt: '2026-01-06T06:00:00.000Z',
  endsAt: '2026-01-06T07:00:00.000Z',
  repeatUnit: 'WEEK',
  repeatInterval: 1,
})
