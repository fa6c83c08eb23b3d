import { ApiCheck, CheckGroup } from '@svc/cli'
import { incidentHook } from './alert-channels.ts'
import { shopApiService } from './services.ts'
import { SHOP_URL } from './shop.ts'

/** The shop's public API: its checks run every 5 minutes and alert the incident bot. */
export const shopApi = new CheckGroup('shop-api', {
  name: 'Shop API',
  frequency: 5,
  locations: ['local'],
  tags: ['api'],
  alertChannels: [incidentHook],
})

const ok = { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' } as const

new ApiCheck('api-health', {
  name: 'API health',
  group: shopApi,
  request: { method: 'GET', url: `${SHOP_URL}/api/health`, assertions: [ok] },
  degradedResponseTime: 1000,
  maxResponseTime: 2000,
  // While the health check fails, the status page shows an incident on the Shop API.
  triggerIncident: {
    service: shopApiService,
    severity: 'MAJOR',
    name: 'Shop API is down',
    description: 'The health endpoint fails; we are looking into it.',
    notifySubscribers: true,
  },
})

new ApiCheck('api-products', {
  name: 'Product list',
  group: shopApi,
  request: {
    method: 'GET',
    url: `${SHOP_URL}/api/products?limit=10`,
    assertions: [ok, { source: 'JSON_BODY', property: '$.length', comparison: 'GREATER_THAN', target: '0' }],
  },
})

new ApiCheck('api-checkout', {
  name: 'Checkout quote',
  group: shopApi,
  request: {
    method: 'POST',
    url: `${SHOP_URL}/api/checkout/quote`,
    bodyType: 'JSON',
    body: JSON.stringify({ items: [{ sku: 'TEA-01', quantity: 2 }] }),
    headers: [{ key: 'content-type', value: 'application/json' }],
    assertions: [ok],
  },
})
