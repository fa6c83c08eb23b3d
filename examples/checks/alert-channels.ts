import { EmailAlertChannel, WebhookAlertChannel } from '@svc/cli'

/** The on-call team's inbox: alerts of every check that names no channel of its own. */
export const opsEmail = new EmailAlertChannel('ops-email', {
  address: 'ops@example.com',
  sendDegraded: true,
})

/** The incident bot: alerts of the shop API's checks. */
export const incidentHook = new WebhookAlertChannel('incident-hook', {
  name: 'Incident bot',
  url: 'https://hooks.example.com/incidents',
  method: 'POST',
})
