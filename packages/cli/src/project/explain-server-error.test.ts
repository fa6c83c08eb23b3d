import assert from 'node:assert/strict'
import { test } from 'node:test'
import { WebhookAlertChannel } from '../constructs/alert-channels.ts'
import { ApiCheck } from '../constructs/checks.ts'
import { resetSession, session } from '../constructs/construct.ts'
import { explainServerError, type Project } from './load-project.ts'

test("a server message about resources.N names that resource's file, logical id and field", () => {
  resetSession()
  session().currentFile = '/project/checks/hooks.ts'
  const hook = new WebhookAlertChannel('hook', { name: 'Hook', url: 'http://127.0.0.1:9/' })
  session().currentFile = '/project/checks/api.check.ts'
  new ApiCheck('orders', { name: 'Orders', alertChannels: [hook], request: { url: 'http://127.0.0.1:9/' } })
  const project: Project = {
    dir: '/project',
    config: { projectName: 'P', logicalId: 'p' },
    constructs: [...session().constructs],
    defaults: {},
    files: [],
  }
  resetSession()
  // Resources: 0 the channel, 1 the check, 2 the check's subscription of the channel.
  assert.equal(
    explainServerError(project, 'resources.1.payload.request.url must match pattern'),
    'checks/api.check.ts: orders: request.url must match pattern',
  )
  assert.equal(
    explainServerError(
      project,
      'resources.2.payload.alertChannelId refers to "x", which this project doesn\'t deploy',
    ),
    'checks/api.check.ts: check-alert-channel-subscription#orders#hook: alertChannelId refers to "x", which this project doesn\'t deploy',
  )
  assert.equal(explainServerError(project, 'body.locations is wrong'), 'body.locations is wrong')
})
