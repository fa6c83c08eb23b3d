import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { startHeaderRecorder } from '@svc/runner/testing'
import { systemClock } from '../../clock.ts'
import { createSecretBox, keyFingerprint, type SecretBox, sealingKeyId } from '../../crypto/secret-box.ts'
import { createSealedValues, legacySeal, rawSealedValues, SECRETS } from '../../testing/sealed-values.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { findVerifier } from './encryption-keys.repo.ts'
import { sweepOnce } from './key-rotation.ts'
import { EncryptionKeyError, verifyEncryptionKeys } from './key-verification.ts'

/** A box whose keys the test swaps, as a restart with another configuration would. */
function swappableBox(key: Buffer) {
  let active = createSecretBox(key)
  const box: SecretBox = {
    encrypt: (plaintext) => active.encrypt(plaintext),
    decrypt: (sealed) => active.decrypt(sealed),
    digest: (value) => active.digest(value),
    get keyId() {
      return active.keyId
    },
    get previousKeyIds() {
      return active.previousKeyIds
    },
  }
  return {
    box,
    use: (current: Buffer, previous: Buffer[] = []) => (active = createSecretBox(current, previous)),
  }
}

const quietLog = { info() {}, warn() {}, error() {} }
const keysOf = (current: Buffer, previous: Buffer[] = []) => ({
  current,
  previous,
  source: 'SVC_ENCRYPTION_KEY',
})

for (const engine of testEngines()) {
  describe(`encryption key verification and rotation on ${engine.engine}`, () => {
    let recorder: Awaited<ReturnType<typeof startHeaderRecorder>>
    before(async () => {
      recorder = await startHeaderRecorder()
    })
    after(() => recorder.close())

    const post = (t: TestApp) => async (url: string, payload: object) => {
      const res = await t.call({ method: 'POST', url, payload })
      return { status: res.statusCode, body: res.body }
    }

    test('the first start writes the verifier; a start with another key is refused naming both fingerprints', async () => {
      const [a, b] = [randomBytes(32), randomBytes(32)]
      const t = await createTestApp(engine, { secretBox: createSecretBox(a) })
      try {
        const ctx = { db: t.store.db, clock: systemClock }
        assert.equal(await findVerifier(ctx), undefined)
        await verifyEncryptionKeys(ctx, keysOf(a))
        const verifier = await findVerifier(ctx)
        assert.equal(verifier?.key_id, keyFingerprint(a))
        assert.equal(verifier?.rotating_to, null)
        assert.equal(sealingKeyId(verifier?.sealed_check ?? ''), keyFingerprint(a))
        await assert.rejects(verifyEncryptionKeys(ctx, keysOf(b)), (error: Error) => {
          assert.ok(error instanceof EncryptionKeyError)
          assert.match(
            error.message,
            new RegExp(`the store expects the key with fingerprint ${keyFingerprint(a)}\\.`),
          )
          assert.match(
            error.message,
            new RegExp(`This node has SVC_ENCRYPTION_KEY \\(fingerprint ${keyFingerprint(b)}\\)`),
          )
          assert.match(error.message, /SVC_ENCRYPTION_KEY_PREVIOUS/)
          assert.match(error.message, /npm run encryption-reset/)
          assert.equal(error.message.includes(a.toString('hex')), false)
          return true
        })
        await verifyEncryptionKeys(ctx, keysOf(a))
        assert.deepEqual(await findVerifier(ctx), verifier)
      } finally {
        await t.close()
      }
    })

    test('a store from before the verifier is checked against its values: another key is refused and blesses nothing', async () => {
      const [a, b] = [randomBytes(32), randomBytes(32)]
      const t = await createTestApp(engine, { secretBox: createSecretBox(a) })
      try {
        const ctx = { db: t.store.db, clock: systemClock }
        await createSealedValues(post(t), recorder.url, 1)
        // Values sealed with key ids name the expected key.
        await assert.rejects(
          verifyEncryptionKeys(ctx, keysOf(b)),
          new RegExp(`the store expects the key with fingerprint ${keyFingerprint(a)}\\.`),
        )
        // Values sealed before key ids can't name it.
        await t.store.db
          .updateTable('variables')
          .set({ encrypted_value: legacySeal(a, SECRETS.account) })
          .execute()
        await t.store.db.deleteFrom('checks').execute()
        await t.store.db.deleteFrom('check_groups').execute()
        await t.store.db.deleteFrom('alert_channels').execute()
        await assert.rejects(verifyEncryptionKeys(ctx, keysOf(b)), /its fingerprint was not recorded/)
        assert.equal(await findVerifier(ctx), undefined)
        // The old key as a previous one: the verifier names it, and a rotation to the new key begins.
        await verifyEncryptionKeys(ctx, keysOf(b, [a]))
        const verifier = await findVerifier(ctx)
        assert.deepEqual([verifier?.key_id, verifier?.rotating_to], [keyFingerprint(a), keyFingerprint(b)])
        // While it runs, a node needs both keys: the old one alone, or the new one alone, is refused.
        await assert.rejects(
          verifyEncryptionKeys(ctx, keysOf(a)),
          new RegExp(`a rotation to the encryption key with fingerprint ${keyFingerprint(b)} is under way`),
        )
        await assert.rejects(
          verifyEncryptionKeys(ctx, keysOf(b)),
          new RegExp(
            `expects the key with fingerprint ${keyFingerprint(a)} \\(and, for a rotation under way, ${keyFingerprint(b)}\\)`,
          ),
        )
        await verifyEncryptionKeys(ctx, keysOf(b, [a]))
      } finally {
        await t.close()
      }
    })

    test('rotation re-seals every sealed column while the API keeps opening them, then moves the verifier', async () => {
      const [a, b] = [randomBytes(32), randomBytes(32)]
      const keys = swappableBox(a)
      const t = await createTestApp(engine, { secretBox: keys.box })
      try {
        const ctx = { db: t.store.db, clock: systemClock }
        await verifyEncryptionKeys(ctx, keysOf(a))
        const { checkId, channelIds } = await createSealedValues(post(t), recorder.url)
        await t.call({
          method: 'POST',
          url: '/v1/variables',
          payload: { key: 'LEGACY', value: 'x', locked: true },
        })
        await t.store.db
          .updateTable('variables')
          .set({ encrypted_value: legacySeal(a, 'legacy-secret') })
          .where('key', '=', 'LEGACY')
          .execute()
        const before = await rawSealedValues(t.store.db)
        assert.equal(before.length, 8)

        const seenMixes = new Set<string>()
        const observe = async () => {
          const under = (await rawSealedValues(t.store.db)).map((v) => sealingKeyId(v) ?? 'legacy')
          seenMixes.add(`${under.filter((id) => id === keyFingerprint(b)).length}/${under.length}`)
          recorder.received.length = 0
          const run = await t.call({ method: 'POST', url: `/v1/checks/${checkId}/trigger` })
          assert.equal(run.statusCode, 200, run.body)
          assert.equal(json(run).hasFailures, false, run.body)
          const headers = recorder.received[0]?.headers
          assert.deepEqual(
            [headers?.['x-account'], headers?.['x-group'], headers?.['x-check']],
            [SECRETS.account, SECRETS.group, SECRETS.check],
          )
          // A save sending the masked values back keeps them: the old ones are opened.
          const channel = json(await t.call({ method: 'GET', url: `/v1/alert-channels/${channelIds[0]}` }))
          const saved = await t.call({
            method: 'PUT',
            url: `/v1/alert-channels/${channelIds[0]}`,
            payload: { type: 'WEBHOOK', config: { ...channel.config, name: `Seen ${seenMixes.size}` } },
          })
          assert.equal(saved.statusCode, 200, saved.body)
        }
        await observe()

        keys.use(b, [a])
        await verifyEncryptionKeys(ctx, keysOf(b, [a]))
        assert.equal((await findVerifier(ctx))?.rotating_to, keyFingerprint(b))
        const outcome = await sweepOnce(t.ctx, { batchSize: 1, afterBatch: observe, log: quietLog })
        assert.equal(outcome.finished, true)
        assert.equal(outcome.left, 0)
        // Seen half done: some values under the new key, some not yet.
        assert.ok(
          [...seenMixes].some((mix) => !mix.startsWith('0/') && mix.split('/')[0] !== mix.split('/')[1]),
        )

        const afterwards = await rawSealedValues(t.store.db)
        assert.equal(afterwards.length, 8)
        for (const sealed of afterwards) assert.equal(sealingKeyId(sealed), keyFingerprint(b), sealed)
        const opened = afterwards.map((sealed) => createSecretBox(b).decrypt(sealed)).sort()
        assert.deepEqual(
          opened,
          [
            SECRETS.account,
            SECRETS.check,
            SECRETS.group,
            'legacy-secret',
            ...Array(2).fill(SECRETS.webhookHeader),
            ...Array(2).fill(SECRETS.webhookSecret),
          ].sort(),
        )
        const verifier = await findVerifier(ctx)
        assert.deepEqual([verifier?.key_id, verifier?.rotating_to], [keyFingerprint(b), null])
        assert.equal(sealingKeyId(verifier?.sealed_check ?? ''), keyFingerprint(b))
        await observe()

        // Done once: a second sweep re-seals nothing; the old key alone no longer starts.
        assert.equal((await sweepOnce(t.ctx, { log: quietLog })).resealed, 0)
        await assert.rejects(
          verifyEncryptionKeys(ctx, keysOf(a)),
          new RegExp(`the store expects the key with fingerprint ${keyFingerprint(b)}\\.`),
        )
        await verifyEncryptionKeys(ctx, keysOf(b))
      } finally {
        await t.close()
      }
    })

    test('nodes sweeping at once re-seal each row once; a node rotating to another key re-seals nothing', async () => {
      const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)]
      const keys = swappableBox(a)
      const t = await createTestApp(engine, { secretBox: keys.box })
      try {
        const ctx = { db: t.store.db, clock: systemClock }
        await verifyEncryptionKeys(ctx, keysOf(a))
        await createSealedValues(post(t), recorder.url, 3)
        keys.use(b, [a])
        await verifyEncryptionKeys(ctx, keysOf(b, [a]))
        const otherNode = { ...t.ctx, secretBox: createSecretBox(c, [a]) }
        const wrong = await sweepOnce(otherNode, { log: quietLog })
        assert.deepEqual([wrong.resealed, wrong.finished], [0, false])
        const nodes = [t.ctx, { ...t.ctx, secretBox: createSecretBox(b, [a]) }]
        const outcomes = await Promise.all(
          nodes.map((node) => sweepOnce(node, { batchSize: 2, log: quietLog })),
        )
        // Rows: one variable, one check, one group, three channels; each re-sealed by one of the nodes.
        assert.equal(
          outcomes.reduce((sum, outcome) => sum + outcome.resealed, 0),
          6,
        )
        for (const sealed of await rawSealedValues(t.store.db)) {
          assert.equal(sealingKeyId(sealed), keyFingerprint(b))
        }
        // A node that lost a row to the other sweeps again (as the worker does soon) and finds nothing left.
        const last = await sweepOnce(t.ctx, { log: quietLog })
        assert.deepEqual([last.resealed, last.left, last.finished], [0, 0, true])
        assert.equal((await findVerifier(ctx))?.key_id, keyFingerprint(b))
      } finally {
        await t.close()
      }
    })
  })
}
