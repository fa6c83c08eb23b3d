import { StatusPageService } from '@svc/cli'

/** What customers see on the status page; failing checks open incidents on them. */
export const shopApiService = new StatusPageService('shop-api-service', {
  name: 'Shop API',
  description: 'Product list, checkout and order APIs',
})

export const storefrontService = new StatusPageService('storefront-service', {
  name: 'Storefront',
  description: 'The shop website',
})
