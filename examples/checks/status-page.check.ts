import { StatusPage } from '@svc/cli'
import { shopApiService, storefrontService } from './services.ts'

/** The public status page at /status/shop-status, one card for the shop's services. */
new StatusPage('shop-status', {
  name: 'Shop status',
  url: 'shop-status',
  description: 'Is the shop up?',
  cards: [{ name: 'Shop', services: [storefrontService, shopApiService] }],
})
