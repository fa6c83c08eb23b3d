import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { Browser, Page } from 'playwright-core'
import { clientCertificateBody } from '../../../server/src/testing/client-certificate.ts'
import { capture, ensureBuilt, launchChromium, newContext, signInWithKey } from './harness.ts'
import { type Deployment, startDeployment } from './server.ts'

/**
 * Client certificates through their settings page: uploaded from PEM files with an encrypted key and its
 * passphrase, listed by host (the key and passphrase never shown), deleted.
 */

for (const engine of testEngines()) {
  describe(`client certificates in Chromium on ${engine.engine}`, () => {
    let deployment: Deployment
    let browser: Browser
    let page: Page
    let folder: string
    const material = clientCertificateBody('api.example.com')

    before(async () => {
      ensureBuilt()
      folder = mkdtempSync(join(tmpdir(), 'svc-client-cert-'))
      writeFileSync(join(folder, 'client.crt'), material.cert)
      writeFileSync(join(folder, 'client.key'), material.key)
      writeFileSync(join(folder, 'ca.pem'), material.ca)
      deployment = await startDeployment(engine)
      browser = await launchChromium()
      page = await (await newContext(browser, deployment.url)).newPage()
      await signInWithKey(page, deployment.ownerKey)
    })

    after(async () => {
      await browser?.close()
      await deployment?.stop()
      rmSync(folder, { recursive: true, force: true })
    })

    const certificates = async () =>
      (await deployment.call<Record<string, unknown>[]>('GET', '/v1/client-certificates')).body

    test('uploads a certificate from files; the list shows its host, never its key', async () => {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Client certificates' })
        .click()
      await page.getByRole('heading', { name: 'Client certificates', level: 1 }).waitFor()
      await page.getByText('No client certificates yet.').waitFor()
      await page.getByRole('link', { name: 'Upload a certificate' }).click()
      await page.getByLabel('Host', { exact: true }).fill('api.example.com')
      await page.getByLabel('Certificate (PEM): read from a file').setInputFiles(join(folder, 'client.crt'))
      await page.getByLabel('Private key (PEM): read from a file').setInputFiles(join(folder, 'client.key'))
      await page.getByLabel('CA certificates (PEM): read from a file').setInputFiles(join(folder, 'ca.pem'))
      // The files' text lands in the fields.
      await page.waitForFunction(() =>
        document
          .querySelector<HTMLTextAreaElement>('textarea[name="ca"]')
          ?.value.includes('BEGIN CERTIFICATE'),
      )
      assert.equal(await page.getByLabel('Certificate (PEM)', { exact: true }).inputValue(), material.cert)
      assert.equal(await page.getByLabel('Private key (PEM)', { exact: true }).inputValue(), material.key)
      await page.getByLabel('Passphrase').fill('wrong passphrase')
      await page.getByRole('button', { name: 'Upload a certificate' }).click()
      // The API's refusal shows beside the passphrase, until the passphrase is edited.
      const beside = page.locator('[data-field-error="passphrase"]')
      await beside.waitFor()
      assert.match((await beside.textContent()) ?? '', /^doesn't open the key: /)
      assert.equal(await page.getByLabel('Passphrase').getAttribute('aria-invalid'), 'true')
      await page.getByLabel('Passphrase').fill(material.passphrase)
      await beside.waitFor({ state: 'detached' })
      await capture(page, 'client-certificate-form', { narrow: true })
      await page.getByRole('button', { name: 'Upload a certificate' }).click()
      const row = page.locator('tr', { hasText: 'api.example.com' })
      await row.waitFor()
      assert.deepEqual(
        await row.locator('td').evaluateAll((cells) => cells.slice(0, 2).map((cell) => cell.textContent)),
        ['api.example.com', 'Own CA'],
      )
      await capture(page, 'client-certificates', { narrow: true })
      const body = (await page.locator('main').textContent()) ?? ''
      assert.equal(body.includes('PRIVATE KEY'), false)
      const [saved] = await certificates()
      assert.deepEqual(
        [saved?.host, saved?.cert, 'key' in (saved ?? {}), 'passphrase' in (saved ?? {})],
        ['api.example.com', material.cert, false, false],
      )
    })

    test('deletes the certificate', async () => {
      await page.goto('/settings/client-certificates')
      page.once('dialog', (dialog) => void dialog.accept())
      await page.getByRole('button', { name: 'Delete api.example.com' }).click()
      await page.getByText('No client certificates yet.').waitFor()
      assert.deepEqual(await certificates(), [])
    })
  })
}
