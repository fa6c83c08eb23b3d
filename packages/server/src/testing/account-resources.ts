import assert from 'node:assert/strict'
import { clientCertificateBody } from './client-certificate.ts'
import { CHANNEL_BODY, CHECK_BODIES, GROUP_BODY, type Made, type ResourceMaker } from './resource-maker.ts'
import { STATUS_PAGE_RESOURCES } from './status-page-resources.ts'

/**
 * How the tenant-isolation test makes, in one account, the resource each route's path names.
 * One row per path of /openapi.json that takes a path parameter; a new such route needs a row here
 * (or an entry in NOT_ACCOUNT_RESOURCES saying why not), or the test fails naming it.
 */

const SNIPPET_BODY = { name: 'Setup', script: 'request.url = request.url' }

/** A check of each type for its type's PUT, e.g. `/v1/checks/api/{id}`. */
const checkOfType = (type: keyof typeof CHECK_BODIES) => async (a: ResourceMaker) => ({
  ids: { id: await a.check(type) },
  bodies: { PUT: CHECK_BODIES[type] },
  readBack: '/v1/checks/{id}',
})

/** A check of each type for its type's analytics, e.g. `/v1/analytics/api-checks/{id}`. */
const analyticsOf = (type: keyof typeof CHECK_BODIES) => async (a: ResourceMaker) => ({
  ids: { id: await a.check(type) },
})

/** A group holding an API check, for the paths that name both. */
async function checkInGroup(a: ResourceMaker) {
  const groupId = (await a.ok('POST', '/v1/check-groups', GROUP_BODY)).id
  const check = await a.ok('POST', '/v1/checks/api', { ...CHECK_BODIES.api, groupId })
  return { ids: { groupId, checkId: check.id as string } }
}

/** Every path with parameters naming a resource of an account, and how to make one. */
export const ACCOUNT_RESOURCES: Record<string, (a: ResourceMaker) => Promise<Made>> = {
  ...STATUS_PAGE_RESOURCES,
  // An invitation: a member in the list like any other, whose set-password link is still unused.
  '/v1/accounts/me/members/{userId}': async (a) => ({
    ids: {
      userId: (
        await a.ok('POST', '/v1/accounts/me/members', {
          email: `${a.unique('invited')}@example.com`,
          role: 'READ_ONLY',
        })
      ).member.id,
    },
    bodies: { PATCH: { role: 'READ_WRITE' } },
    readBack: '/v1/accounts/me/members',
  }),
  '/next/accounts/{accountId}': async (a) => ({ ids: { accountId: a.owner.accountId } }),
  '/v1/accounts/{accountId}': async (a) => ({ ids: { accountId: a.owner.accountId } }),
  '/v1/accounts/{accountId}/entitlements': async (a) => ({ ids: { accountId: a.owner.accountId } }),
  '/v1/accounts/{accountId}/members': async (a) => ({ ids: { accountId: a.owner.accountId } }),
  '/v1/accounts/{accountId}/members/{userId}': async (a) => ({
    ids: {
      accountId: a.owner.accountId,
      userId: (await a.t.addUser('READ_ONLY', a.owner.accountId)).userId as string,
    },
    bodies: { PATCH: { role: 'READ_WRITE' } },
    readBack: '/v1/accounts/me/members',
  }),
  '/v1/api-keys/{id}': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/api-keys', { name: a.unique('key') })).id },
    readBack: '/v1/api-keys',
  }),
  '/v1/variables/{key}': async (a) => {
    const key = a.unique('ONLY_A').replace('-', '_').toUpperCase()
    await a.ok('POST', '/v1/variables', { key, value: 'a' })
    return { ids: { key }, bodies: { PUT: { value: 'b' } } }
  },
  '/v1/snippets/{id}': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/snippets', SNIPPET_BODY)).id },
    bodies: { PUT: SNIPPET_BODY },
  }),
  '/v1/client-certificates/{id}': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/client-certificates', clientCertificateBody())).id },
    readBack: '/v1/client-certificates',
  }),
  '/v1/checks/{id}': async (a) => ({ ids: { id: await a.check() }, bodies: { PUT: CHECK_BODIES.api } }),
  '/v2/checks/{id}': async (a) => ({ ids: { id: await a.check() } }),
  '/v3/checks/{id}': async (a) => ({ ids: { id: await a.check() } }),
  '/v1/checks/{id}/trigger': async (a) => ({
    ids: { id: await a.check() },
    readBack: '/v1/check-results/{id}',
  }),
  '/v1/checks/{id}/cancel': async (a) => ({
    ids: { id: await a.check('automation') },
    readBack: '/v1/checks/{id}',
  }),
  '/v1/checks/api/{id}': checkOfType('api'),
  '/v1/checks/browser/{id}': checkOfType('browser'),
  '/v1/checks/heartbeat/{id}': checkOfType('heartbeat'),
  '/v1/checks/tcp/{id}': checkOfType('tcp'),
  '/v1/checks/url/{id}': checkOfType('url'),
  '/v1/checks/dns/{id}': checkOfType('dns'),
  '/v1/checks/icmp/{id}': checkOfType('icmp'),
  '/v1/checks/multistep/{id}': checkOfType('multistep'),
  '/v1/checks/automation/{id}': checkOfType('automation'),
  '/v1/checks/ssl/{id}': checkOfType('ssl'),
  '/v1/check-groups/{id}': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/check-groups', GROUP_BODY)).id },
    bodies: { PUT: GROUP_BODY },
  }),
  '/v1/check-groups/{id}/checks': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/check-groups', GROUP_BODY)).id },
  }),
  '/v1/check-groups/{id}/trigger': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/check-groups', GROUP_BODY)).id },
    readBack: '/v1/check-groups/{id}',
  }),
  '/v1/check-groups/{groupId}/checks/{checkId}': checkInGroup,
  '/v2/check-groups/{id}': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/check-groups', GROUP_BODY)).id },
    bodies: { PUT: GROUP_BODY },
    readBack: '/v1/check-groups/{id}',
  }),
  '/v2/check-groups/{id}/checks': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/check-groups', GROUP_BODY)).id },
  }),
  '/v2/check-groups/{groupId}/checks/{checkId}': checkInGroup,
  '/v1/check-results/{checkId}': async (a) => ({ ids: { checkId: (await a.failedRun()).checkId } }),
  '/v2/check-results/{checkId}': async (a) => ({ ids: { checkId: (await a.failedRun()).checkId } }),
  '/v1/check-results/{checkId}/{resultId}': async (a) => ({ ids: await a.failedRun() }),
  '/v1/check-results/{checkId}/{resultId}/assets': async (a) => ({ ids: await a.failedRun() }),
  '/v1/check-results/{checkId}/{resultId}/artifacts/{*}': async (a) => {
    const { checkId, resultId } = await a.failedRun()
    await a.artifacts.put(checkId, resultId, 'screenshot-1.png', Buffer.from('png'))
    return { ids: { checkId, resultId, '*': 'screenshot-1.png' } }
  },
  '/v1/check-alerts/{checkId}': async (a) => ({ ids: { checkId: (await a.failedRun()).checkId } }),
  '/v1/checks/heartbeats/{checkId}/events': async (a) => ({
    ids: { checkId: (await a.pingedHeartbeat()).checkId },
  }),
  '/v1/checks/heartbeats/{checkId}/events/{id}': async (a) => ({ ids: await a.pingedHeartbeat() }),
  '/v1/checks/heartbeats/{checkId}/availability': async (a) => ({
    ids: { checkId: (await a.pingedHeartbeat()).checkId },
  }),
  '/v1/check-statuses/{checkId}': async (a) => ({ ids: { checkId: (await a.failedRun()).checkId } }),
  '/v1/alert-channels/{id}': async (a) => ({ ids: { id: await a.channel() }, bodies: { PUT: CHANNEL_BODY } }),
  '/v1/alert-channels/{id}/subscriptions': async (a) => ({
    ids: { id: await a.channel() },
    bodies: { PUT: { checkId: await a.check(), activated: true } },
    readBack: '/v1/alert-channels/{id}',
  }),
  '/v1/alert-channels/{id}/test': async (a) => ({
    ids: { id: await a.channel() },
    readBack: '/v1/alert-channels/{id}',
  }),
  '/v1/alert-notifications/{id}': async (a) => {
    const channel = await a.channel()
    const check = await a.ok('POST', '/v1/checks/api?autoAssignAlerts=false', {
      ...CHECK_BODIES.api,
      alertChannelSubscriptions: [{ alertChannelId: channel, activated: true }],
    })
    await a.ok('POST', `/v1/checks/${check.id}/trigger`)
    const [notification] = await a.ok('GET', `/v1/alert-notifications?checkId=${check.id}`)
    assert.ok(notification, 'a failed run notifies its channel')
    return { ids: { id: notification.id } }
  },
  '/v1/private-locations/{id}': async (a) => ({
    ids: { id: await a.privateLocation() },
    bodies: { PUT: { name: 'Lab renamed', slugName: a.unique('renamed-lab') } },
  }),
  '/v1/private-locations/{id}/keys': async (a) => ({
    ids: { id: await a.privateLocation() },
    readBack: '/v1/private-locations/{id}',
  }),
  '/v1/private-locations/{id}/keys/{keyId}': async (a) => {
    const id = await a.privateLocation()
    const key = await a.ok('POST', `/v1/private-locations/${id}/keys`)
    return { ids: { id, keyId: key.id }, readBack: '/v1/private-locations/{id}' }
  },
  '/v1/projects/{logicalId}': async (a) => ({ ids: { logicalId: (await a.project()).logicalId } }),
  '/next/projects/{logicalId}': async (a) => ({ ids: { logicalId: (await a.project()).logicalId } }),
  '/v1/projects/{logicalId}/deployments/{deploymentId}': async (a) => ({ ids: await a.project() }),
  '/v1/projects/{logicalId}/deployments/{deploymentId}/completion': async (a) => ({ ids: await a.project() }),
  '/v1/projects/{logicalId}/deployments/{deploymentId}/events': async (a) => ({ ids: await a.project() }),
  '/v1/projects/{logicalId}/deployments/{deploymentId}/cancel': async (a) => ({
    ids: await a.project(),
    readBack: '/v1/projects/{logicalId}/deployments/{deploymentId}',
  }),
  '/v1/test-sessions/{testSessionId}': async (a) => ({ ids: await a.testSession() }),
  '/v1/test-sessions/{testSessionId}/completion': async (a) => ({ ids: await a.testSession() }),
  '/v1/test-sessions/{testSessionId}/events': async (a) => ({ ids: await a.testSession() }),
  '/v1/test-sessions/{testSessionId}/cancel': async (a) => ({
    ids: await a.testSession(),
    readBack: '/v1/test-sessions/{testSessionId}',
  }),
  '/v1/test-sessions/{testSessionId}/results/{testSessionResultId}': async (a) => ({
    ids: await a.testSession(),
  }),
  '/v1/test-sessions/{testSessionId}/results/{testSessionResultId}/assets': async (a) => ({
    ids: await a.testSession(),
  }),
  '/next/test-sessions/{testSessionId}/link': async (a) => ({ ids: await a.testSession() }),
  '/next/test-sessions/{testSessionId}/results/{testSessionResultId}/links': async (a) => ({
    ids: await a.testSession(),
  }),
  '/v1/test-sessions/{testSessionId}/results/{testSessionResultId}/artifacts/{*}': async (a) => {
    const ids = await a.testSession()
    // An unsaved definition's artifacts are filed under its result's id, as its check's and its result's.
    await a.artifacts.put(
      ids.testSessionResultId,
      ids.testSessionResultId,
      'screenshot-1.png',
      Buffer.from('png'),
    )
    return { ids: { ...ids, '*': 'screenshot-1.png' } }
  },
  '/v1/check-sessions/{checkSessionId}': async (a) => ({ ids: { checkSessionId: await a.checkSession() } }),
  '/v1/check-sessions/{checkSessionId}/completion': async (a) => ({
    ids: { checkSessionId: await a.checkSession() },
  }),
  '/v2/check-sessions/{checkSessionId}': async (a) => ({ ids: { checkSessionId: await a.checkSession() } }),
  '/v2/check-sessions/{checkSessionId}/completion': async (a) => ({
    ids: { checkSessionId: await a.checkSession() },
  }),
  '/v1/dashboards/{dashboardId}': async (a) => ({
    ids: { dashboardId: (await a.dashboard()).dashboardId },
    bodies: { PUT: { header: 'Renamed' } },
  }),
  '/v1/incidents/{id}': async (a) => ({
    ids: { id: await a.dashboardIncident() },
    bodies: { PUT: { name: 'Renamed', impact: 'MAJOR' } },
  }),
  '/v1/check-sessions/{checkSessionId}/cancel': async (a) => ({
    ids: { checkSessionId: await a.checkSession() },
    readBack: '/v1/check-sessions/{checkSessionId}',
  }),
  '/v1/triggers/checks/{checkId}': async (a) => {
    const checkId = await a.check('api')
    await a.ok('POST', `/v1/triggers/checks/${checkId}`)
    return { ids: { checkId } }
  },
  '/v1/triggers/checks/{checkId}/run': async (a) => {
    const checkId = await a.check('api')
    await a.ok('POST', `/v1/triggers/checks/${checkId}`)
    return { ids: { checkId }, readBack: '/v1/triggers/checks/{checkId}' }
  },
  '/v1/triggers/check-groups/{groupId}': async (a) => {
    const groupId = (await a.ok('POST', '/v1/check-groups', { name: a.unique('group') })).id
    await a.ok('POST', `/v1/triggers/check-groups/${groupId}`)
    return { ids: { groupId } }
  },
  '/v1/triggers/check-groups/{groupId}/run': async (a) => {
    const groupId = (await a.ok('POST', '/v1/check-groups', { name: a.unique('group') })).id
    await a.ok('POST', `/v1/triggers/check-groups/${groupId}`)
    await a.ok('POST', '/v1/checks/api', { ...CHECK_BODIES.api, groupId })
    return { ids: { groupId }, readBack: '/v1/triggers/check-groups/{groupId}' }
  },
  '/v1/analytics/url-monitors/{id}': analyticsOf('url'),
  '/v1/analytics/api-checks/{id}': analyticsOf('api'),
  '/v1/analytics/browser-checks/{id}': analyticsOf('browser'),
  '/v1/analytics/multistep-checks/{id}': analyticsOf('multistep'),
  '/v1/analytics/playwright-checks/{id}': analyticsOf('automation'),
  '/v1/analytics/tcp-checks/{id}': analyticsOf('tcp'),
  '/v1/analytics/dns/{id}': analyticsOf('dns'),
  '/v1/analytics/icmp/{id}': analyticsOf('icmp'),
  '/v1/analytics/heartbeat-checks/{id}': analyticsOf('heartbeat'),
  '/v1/analytics/ssl/{id}': analyticsOf('ssl'),
  '/v1/error-groups/checks/{checkId}': async (a) => ({ ids: { checkId: (await a.failedRun()).checkId } }),
  '/v1/error-groups/{id}': async (a) => ({
    ids: { id: await errorGroupOf(a) },
    bodies: { PATCH: { archivedUntilNextEvent: true } },
  }),
  '/v1/root-cause-analyses/error-groups/{errorGroupId}': async (a) => {
    const errorGroupId = await errorGroupOf(a)
    return { ids: { errorGroupId }, readBack: `/v1/error-groups/${errorGroupId}` }
  },
  '/v1/root-cause-analyses/{id}': async (a) => {
    const errorGroupId = await errorGroupOf(a)
    return { ids: { id: (await a.ok('POST', `/v1/root-cause-analyses/error-groups/${errorGroupId}`)).id } }
  },
}

async function errorGroupOf(a: ResourceMaker): Promise<string> {
  const { checkId } = await a.failedRun()
  const [group] = await a.ok('GET', `/v1/error-groups/checks/${checkId}`)
  assert.ok(group, 'a failed run makes an error group')
  return group.id
}

/** Paths with parameters that name no resource of an account, and why the table leaves them out. */
export const NOT_ACCOUNT_RESOURCES: Record<string, string> = {
  '/v1/runtimes/{id}': 'runtimes are the same for every account',
  '/ping/{token}': "an open route: the heartbeat's token is the secret, and names the check by itself",
  '/ping/{token}/fail': "an open route: the heartbeat's token is the secret, and names the check by itself",
  '/v1/badges/checks/{checkId}': "an open route (README badges): the check's random UUID addresses it",
  '/v1/badges/groups/{groupId}':
    "an open route (README badges): the group's account is named by `accountId`; badges.test.ts shows another's is a 404",
  '/dashboards/{customUrl}':
    "an open route (a dashboard's public page): its customUrl is public by design, and a private one needs the account's key",
  '/agent/v1/checks/{checkId}/results/{resultId}/artifacts/{*}':
    "the agent protocol: called with a private-location key, not an account's API key",
}

/**
 * Operations that answer another account's name as a resource that doesn't exist in the caller's own
 * account, by design: still a 2xx that changes nothing of the owner's.
 */
export const IDEMPOTENT_FOR_STRANGERS: Record<string, string> = {
  'DELETE /v1/projects/{logicalId}':
    "a project's logicalId is a name within the account; deleting one that doesn't exist is 200 with an empty diff (the hosted CLI's destroy counts it as deleted)",
}

/** Paths of open routes that name a status page by its public slug: public by design. */
export const isPublicStatusRoute = (path: string): boolean => path.startsWith('/status/')
