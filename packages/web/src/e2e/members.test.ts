import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { Browser, Locator, Page } from 'playwright-core'
import { capture, ensureBuilt, launchChromium, newContext } from './harness.ts'
import { type Deployment, startDeployment } from './server.ts'

const PASSWORD = 'a long enough password'
const INVITED = 'grace@example.com'

async function signInWithKey(page: Page, key: string): Promise<void> {
  await page.goto('/')
  await page.getByRole('tab', { name: 'API key' }).click()
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Checks', level: 1 }).waitFor()
}

for (const engine of testEngines()) {
  describe(`member invites in Chromium on ${engine.engine}`, () => {
    let deployment: Deployment
    let browser: Browser

    before(async () => {
      ensureBuilt()
      deployment = await startDeployment(engine)
      browser = await launchChromium()
      const check = await deployment.call('POST', '/v1/checks/url', {
        name: 'Front page',
        activated: false,
        request: { url: 'http://127.0.0.1:9/' },
      })
      assert.equal(check.status, 201)
    })

    after(async () => {
      await browser?.close()
      await deployment?.stop()
    })

    test('an admin invites a READ_ONLY person, who sets a password, signs in and sees no edit buttons', async () => {
      const adminContext = await newContext(browser, deployment.url)
      const admin = await adminContext.newPage()
      await signInWithKey(admin, deployment.ownerKey)
      await admin.goto('/settings/members')
      await admin.getByRole('link', { name: 'Invite a person' }).click()
      await admin.getByLabel('Email').fill(INVITED)
      await admin.getByLabel('Name (optional)').fill('Grace Hopper')
      await admin.getByLabel('Role').selectOption('READ_ONLY')
      await capture(admin, 'settings-members-invite')
      await admin.getByRole('button', { name: 'Invite a person' }).click()
      const link = admin.locator('[data-invite-link]')
      await link.waitFor()
      const url = new URL(await link.innerText())
      assert.equal(url.pathname, '/set-password')
      await admin.getByText("mail isn't configured").waitFor()
      await capture(admin, 'settings-members-invite-link')
      await admin.getByRole('link', { name: 'Done' }).click()
      const row = admin.locator('tr', { hasText: INVITED })
      await row.getByText('Invited').waitFor()
      await capture(admin, 'settings-members-invited')

      // The invited person opens the link in a browser of their own.
      const guestContext = await newContext(browser, deployment.url)
      const guest = await guestContext.newPage()
      try {
        await guest.goto(url.pathname + url.search)
        await guest.getByLabel('New password').fill(PASSWORD)
        await guest.getByLabel('Repeat password').fill(PASSWORD)
        await guest.getByRole('button', { name: 'Set password' }).click()
        await guest.getByText('Your password is set.').waitFor()
        await guest.goto('/')
        await guest.getByLabel('Email').fill(INVITED)
        await guest.getByLabel('Password').fill(PASSWORD)
        await guest.getByRole('button', { name: 'Sign in' }).click()
        await guest.getByRole('heading', { name: 'Checks', level: 1 }).waitFor()
        await guest.getByRole('link', { name: 'Front page', exact: true }).waitFor()
        assert.equal(await guest.locator('summary', { hasText: 'New check' }).count(), 0)
        await guest.getByRole('link', { name: 'Front page', exact: true }).click()
        await guest.getByRole('heading', { name: 'Front page', level: 1 }).waitFor()
        for (const name of ['Edit', 'Delete', 'Pause', 'Resume', 'Run now', 'Duplicate'])
          assert.equal(await guest.getByRole('button', { name, exact: true }).count(), 0, name)
        assert.equal(await guest.getByRole('link', { name: 'Edit', exact: true }).count(), 0)
        await guest.goto('/settings/members')
        await guest.locator('tr', { hasText: INVITED }).waitFor()
        assert.equal(await guest.getByRole('link', { name: 'Invite a person' }).count(), 0)
        assert.equal(await guest.getByRole('button', { name: /^Delete/ }).count(), 0)
        await capture(guest, 'read-only-members')
      } finally {
        await guestContext.close()
      }

      // Accepted: the admin's list now shows a member with the role.
      await admin.reload()
      await row.getByText('Member', { exact: true }).waitFor()
      assert.match(await row.innerText(), /READ_ONLY/)
      // A member's form holds the role alone: the select keeps a column's width, not the card's.
      await row.getByRole('link', { name: 'Edit' }).click()
      const role = admin.getByLabel('Role')
      await role.waitFor()
      const widthOf = async (locator: Locator) => Math.round((await locator.boundingBox())?.width ?? 0)
      const sizes = {
        card: await widthOf(admin.locator('section.card', { has: role })),
        role: await widthOf(role),
      }
      assert.equal(sizes.role < sizes.card / 2, true, JSON.stringify(sizes))
      await capture(admin, 'settings-member-edit')
      await adminContext.close()
    })
  })
}
