import assert from 'node:assert/strict'
import { createCipheriv, randomBytes } from 'node:crypto'
import type { Database } from '@svc/db'
import type { Kysely } from 'kysely'
import { SEALED_COLUMNS, sealedRowsAfter } from '../features/encryption-keys/encryption-keys.repo.ts'
import { sealedFieldsOf } from '../features/encryption-keys/sealed-fields.ts'

/** A value as versions before key ids sealed it: `v1:` + base64(iv | tag | ciphertext). */
export function legacySeal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`
}

/** Every sealed value in the store, read from the raw columns. */
export async function rawSealedValues(db: Kysely<Database>): Promise<string[]> {
  const values: string[] = []
  for (const place of SEALED_COLUMNS) {
    for (const row of await sealedRowsAfter({ db }, place, undefined, 10_000)) {
      values.push(...(place.form === 'plain' ? [row.value] : sealedFieldsOf(row.value)))
    }
  }
  return values
}

export const SECRETS = {
  account: 'acct-secret',
  group: 'group-secret',
  check: 'check-secret',
  webhookSecret: 'shh-secret',
  webhookHeader: 'Bearer t0ken',
}

/**
 * Values in every sealed column, through the API: a secret account variable, a group's and a check's
 * locked variable (the check sends all three as headers to `targetUrl`), and webhook channels with a
 * secret and a locked header. Gives the check's and the channels' ids.
 */
export async function createSealedValues(
  post: (url: string, payload: object) => Promise<{ status: number; body: string }>,
  targetUrl: string,
  channels = 2,
) {
  const created = async (url: string, payload: object) => {
    const res = await post(url, payload)
    assert.equal(res.status, 201, res.body)
    return JSON.parse(res.body)
  }
  await created('/v1/variables', { key: 'ACCOUNT_TOKEN', value: SECRETS.account, secret: true })
  const group = await created('/v1/check-groups', {
    name: 'Checkout',
    activated: false,
    environmentVariables: [{ key: 'GROUP_TOKEN', value: SECRETS.group, locked: true }],
  })
  const check = await created('/v1/checks/api', {
    name: 'Orders',
    activated: false,
    groupId: group.id,
    environmentVariables: [{ key: 'CHECK_TOKEN', value: SECRETS.check, locked: true }],
    request: {
      url: `${targetUrl}/orders`,
      method: 'GET',
      headers: [
        { key: 'X-Account', value: '{{ACCOUNT_TOKEN}}' },
        { key: 'X-Group', value: '{{GROUP_TOKEN}}' },
        { key: 'X-Check', value: '{{CHECK_TOKEN}}' },
      ],
    },
  })
  const channelIds: number[] = []
  for (let i = 0; i < channels; i++) {
    const channel = await created('/v1/alert-channels', {
      type: 'WEBHOOK',
      config: {
        name: `Ops hook ${i}`,
        url: 'https://hooks.example.com/alerts',
        headers: [{ key: 'Authorization', value: SECRETS.webhookHeader, locked: true }],
        template: '{"title": "{{ALERT_TITLE}}"}',
        webhookSecret: SECRETS.webhookSecret,
      },
    })
    channelIds.push(channel.id)
  }
  return { checkId: check.id as string, channelIds }
}
