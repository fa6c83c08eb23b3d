import { expect, test } from '@playwright/test'

const SHOP_URL = process.env.SHOP_URL as string

test('a shopper finds a product', async ({ page }) => {
  const response = await page.goto(SHOP_URL)
  expect(response?.status()).toBeLessThan(400)
  await expect(page.locator('body')).toBeVisible()
})
