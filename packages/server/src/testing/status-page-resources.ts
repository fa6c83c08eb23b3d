import assert from 'node:assert/strict'
import { INCIDENT_BODY, type Made, type ResourceMaker, UPDATE_BODY } from './resource-maker.ts'

/** The rows of ACCOUNT_RESOURCES (account-resources.ts) for what an account publishes: maintenance windows, status pages and their incidents and subscribers. */

const WINDOW_BODY = {
  name: 'Nightly deploy',
  tags: ['api'],
  startsAt: '2026-01-05T22:00:00Z',
  endsAt: '2026-01-05T23:00:00Z',
}

export const STATUS_PAGE_RESOURCES: Record<string, (a: ResourceMaker) => Promise<Made>> = {
  '/v1/maintenance-windows/{id}': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/maintenance-windows', WINDOW_BODY)).id },
    bodies: { PUT: WINDOW_BODY },
  }),
  '/v1/maintenance-windows/{id}/maintenances': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/maintenance-windows', WINDOW_BODY)).id },
  }),
  '/v1/maintenance-windows/{id}/maintenances/{maintenanceId}': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/maintenance-windows', WINDOW_BODY)).id, maintenanceId: '0' },
    bodies: { PATCH: { endsAt: '2026-01-06T01:00:00Z' } },
  }),
  '/v1/maintenance-windows/{id}/maintenances/{maintenanceId}/updates': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/maintenance-windows', WINDOW_BODY)).id, maintenanceId: '0' },
    bodies: { POST: { status: 'CANCELLED', description: 'Called off' } },
    readBack: '/v1/maintenance-windows/{id}/maintenances/{maintenanceId}',
  }),
  '/v1/maintenance-windows/{id}/maintenances/{maintenanceId}/updates/{updateId}': async (a) => {
    const id = (await a.ok('POST', '/v1/maintenance-windows', WINDOW_BODY)).id
    const updates = `/v1/maintenance-windows/${id}/maintenances/0/updates`
    const update = await a.ok('POST', updates, { status: 'SCHEDULED', description: 'Planned' })
    return {
      ids: { id, maintenanceId: '0', updateId: update.id },
      bodies: { PUT: { description: 'Replanned' } },
      readBack: '/v1/maintenance-windows/{id}/maintenances/{maintenanceId}',
    }
  },
  '/v1/status-pages/services/{id}': async (a) => ({
    ids: { id: (await a.ok('POST', '/v1/status-pages/services', { name: 'API' })).id },
    bodies: { PUT: { name: 'API renamed' } },
  }),
  '/v3/status-pages/{statusPageId}': async (a) => {
    const statusPageId = await a.statusPage()
    return {
      ids: { statusPageId },
      bodies: { PUT: { name: 'Renamed', url: a.unique('renamed'), cards: [] } },
    }
  },
  '/v1/status-pages/{statusPageId}': async (a) => ({
    ids: { statusPageId: await a.statusPage() },
    bodies: { PUT: { name: 'Renamed', url: a.unique('renamed'), cards: [] } },
  }),
  '/v1/status-pages/incidents/{incidentId}': async (a) => {
    const { incidentId, serviceId } = await a.hostedIncident()
    return {
      ids: { incidentId },
      bodies: { PUT: { name: 'Renamed outage', severity: 'MINOR', services: [{ id: serviceId }] } },
    }
  },
  '/v1/status-pages/incidents/{incidentId}/incident-updates': async (a) => ({
    ids: { incidentId: (await a.hostedIncident()).incidentId },
    bodies: { POST: { description: 'Still looking' } },
  }),
  '/v1/status-pages/incidents/{incidentId}/incident-updates/{incidentUpdateId}': async (a) => {
    const { incidentId, incidentUpdateId } = await a.hostedIncident()
    return { ids: { incidentId, incidentUpdateId }, bodies: { PUT: { description: 'Edited' } } }
  },
  '/v1/status-pages/{statusPageId}/subscriptions': async (a) => ({
    ids: { statusPageId: await a.statusPage() },
  }),
  '/v1/status-pages/{statusPageId}/subscriptions/bulk': async (a) => ({
    ids: { statusPageId: await a.statusPage() },
    bodies: { POST: { subscriptions: [{ type: 'EMAIL', config: `${a.unique('reader')}@example.com` }] } },
    readBack: '/v1/status-pages/{statusPageId}/subscriptions',
  }),
  '/v1/status-pages/{statusPageId}/subscriptions/{subscriptionId}': async (a) => ({
    ids: await a.subscription(),
    readBack: '/v1/status-pages/{statusPageId}/subscriptions',
  }),
  '/v3/status-pages/{statusPageId}/access-tokens': async (a) => ({
    ids: { statusPageId: await a.statusPage() },
    bodies: { POST: { name: 'partners' } },
  }),
  '/v3/status-pages/{statusPageId}/access-tokens/{tokenId}': async (a) => {
    const statusPageId = await a.statusPage()
    const url = `/v3/status-pages/${statusPageId}/access-tokens`
    const token = await a.ok('POST', url, { name: 'partners' })
    return {
      ids: { statusPageId, tokenId: token.id },
      readBack: '/v3/status-pages/{statusPageId}/access-tokens',
    }
  },
  '/v3/status-pages/{statusPageId}/incidents': async (a) => ({
    ids: { statusPageId: await a.statusPage() },
    bodies: { POST: INCIDENT_BODY },
  }),
  '/v3/status-pages/{statusPageId}/incidents/{incidentId}': async (a) => {
    const { statusPageId, incidentId } = await a.incident()
    return { ids: { statusPageId, incidentId }, bodies: { PUT: { name: 'Renamed outage' } } }
  },
  '/v1/incidents/{incidentId}/updates': async (a) => {
    const { statusPageId, incidentId } = await a.incident()
    return {
      ids: { incidentId },
      bodies: { POST: UPDATE_BODY },
      readBack: `/v3/status-pages/${statusPageId}/incidents/{incidentId}`,
    }
  },
  '/v1/incidents/{incidentId}/updates/{id}': async (a) => {
    const { statusPageId, incidentId, updateId } = await a.incident()
    return {
      ids: { incidentId, id: updateId },
      bodies: { PUT: { description: 'Found it', status: 'IDENTIFIED' } },
      readBack: `/v3/status-pages/${statusPageId}/incidents/{incidentId}`,
    }
  },
  '/v3/status-pages/{statusPageId}/subscribers': async (a) => ({
    ids: { statusPageId: await a.statusPage() },
  }),
  '/v3/status-pages/{statusPageId}/subscribers/{subscriberId}': async (a) => {
    const slug = a.unique('subscribed')
    const page = await a.ok('POST', '/v3/status-pages', { name: 'Page', url: slug, cards: [] })
    const email = `${slug}@example.com`
    const subscribed = await a.t.call({
      method: 'POST',
      url: `/status/${slug}/subscribe`,
      as: null,
      payload: { email },
    })
    assert.ok(subscribed.statusCode < 300, subscribed.body)
    const [subscriber] = await a.ok('GET', `/v3/status-pages/${page.id}/subscribers`)
    return {
      ids: { statusPageId: page.id, subscriberId: subscriber.id },
      readBack: '/v3/status-pages/{statusPageId}/subscribers',
    }
  },
}
