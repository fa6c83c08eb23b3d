/** Where the shop runs; tests point it at a local server. */
export const SHOP_URL = process.env.SHOP_URL ?? 'https://shop.example.com'
