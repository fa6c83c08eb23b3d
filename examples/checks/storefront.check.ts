import { BrowserCheck } from '@svc/cli'
import { storefrontService } from './services.ts'
import { SHOP_URL } from './shop.ts'

/** A shopper's journey in a real browser, once an hour: the script lives in its own spec file. */
new BrowserCheck('storefront-journey', {
  name: 'Storefront journey',
  frequency: 60,
  code: { entrypoint: './storefront.spec.ts' },
  // The script reads it as process.env.SHOP_URL when it runs on the server.
  environmentVariables: [{ key: 'SHOP_URL', value: SHOP_URL }],
  triggerIncident: {
    service: storefrontService,
    severity: 'MINOR',
    name: 'The storefront has problems',
    description: 'Shoppers may not find products; we are looking into it.',
    notifySubscribers: false,
  },
})
