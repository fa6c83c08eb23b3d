import assert from 'node:assert/strict'
import { createCipheriv, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { ConfigError, loadConfig, parseEncryptionKey } from '../config.ts'
import { createSecretBox, keyFingerprint, loadOrCreateEncryptionKey, sealingKeyId } from './secret-box.ts'

test('seals and opens values; every seal differs; tampering and wrong keys fail', () => {
  const box = createSecretBox(randomBytes(32))
  for (const plaintext of ['', 'hunter2', 'ünïcødé ✓ 🙂', 'x'.repeat(10_000)]) {
    assert.equal(box.decrypt(box.encrypt(plaintext)), plaintext)
  }
  const a = box.encrypt('same')
  assert.notEqual(a, box.encrypt('same'))
  assert.match(a, new RegExp(`^v2:${box.keyId}:[A-Za-z0-9+/=]+$`))
  const prefix = `v2:${box.keyId}:`
  const bytes = Buffer.from(a.slice(prefix.length), 'base64')
  bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1
  assert.throws(() => box.decrypt(`${prefix}${bytes.toString('base64')}`))
  assert.throws(() => createSecretBox(randomBytes(32)).decrypt(a), /not configured/)
  assert.throws(() => box.decrypt('v0:abc'), /version/)
})

/** A value as versions before key ids sealed it: `v1:` + base64(iv | tag | ciphertext). */
function legacySeal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`
}

test('a sealed value names its key by fingerprint; previous keys open their values, and legacy values open by trial', () => {
  const oldKey = randomBytes(32)
  const newKey = randomBytes(32)
  const oldBox = createSecretBox(oldKey)
  const rotating = createSecretBox(newKey, [oldKey])
  assert.equal(rotating.keyId, keyFingerprint(newKey))
  assert.deepEqual(rotating.previousKeyIds, [keyFingerprint(oldKey)])
  assert.match(keyFingerprint(oldKey), /^[0-9a-f]{8}$/)
  assert.notEqual(keyFingerprint(oldKey), keyFingerprint(newKey))
  // The fingerprint is no prefix of the key or of its plain SHA-256.
  assert.ok(!oldKey.toString('hex').startsWith(keyFingerprint(oldKey)))
  const underOld = oldBox.encrypt('old secret')
  assert.equal(sealingKeyId(underOld), keyFingerprint(oldKey))
  assert.equal(rotating.decrypt(underOld), 'old secret')
  assert.equal(sealingKeyId(rotating.encrypt('x')), keyFingerprint(newKey))
  assert.equal(rotating.decrypt(legacySeal(oldKey, 'legacy')), 'legacy')
  assert.equal(rotating.decrypt(legacySeal(newKey, 'legacy new')), 'legacy new')
  assert.equal(sealingKeyId(legacySeal(oldKey, 'x')), undefined)
  assert.throws(
    () => createSecretBox(newKey).decrypt(underOld),
    new RegExp(`${keyFingerprint(oldKey)}, which is not configured`),
  )
  assert.throws(() => createSecretBox(newKey).decrypt(legacySeal(oldKey, 'x')))
})

test('SVC_ENCRYPTION_KEY_PREVIOUS takes a comma-separated list of keys, and needs SVC_ENCRYPTION_KEY', () => {
  const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)]
  const config = loadConfig({
    SVC_ENCRYPTION_KEY: a.toString('hex'),
    SVC_ENCRYPTION_KEY_PREVIOUS: ` ${b.toString('hex')}, ${c.toString('base64')} `,
  })
  assert.deepEqual(config.previousEncryptionKeys, [b, c])
  assert.deepEqual(loadConfig({}).previousEncryptionKeys, [])
  assert.throws(
    () =>
      loadConfig({
        SVC_ENCRYPTION_KEY: a.toString('hex'),
        SVC_ENCRYPTION_KEY_PREVIOUS: `${b.toString('hex')},short`,
      }),
    /SVC_ENCRYPTION_KEY_PREVIOUS \(key 2\) must be 32 bytes/,
  )
  assert.throws(
    () => loadConfig({ SVC_ENCRYPTION_KEY_PREVIOUS: b.toString('hex') }),
    /SVC_ENCRYPTION_KEY_PREVIOUS is set but SVC_ENCRYPTION_KEY is not/,
  )
})

test('the key is generated once into the data dir (0600), reused, and a configured key wins', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-key-'))
  try {
    const first = loadOrCreateEncryptionKey(undefined, dir)
    assert.equal(first.length, 32)
    assert.equal(statSync(join(dir, 'encryption.key')).mode & 0o777, 0o600)
    assert.deepEqual(loadOrCreateEncryptionKey(undefined, dir), first)
    const configured = randomBytes(32)
    assert.deepEqual(loadOrCreateEncryptionKey(configured, dir), configured)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('SVC_ENCRYPTION_KEY takes 64 hex characters or base64 of 32 bytes', () => {
  const key = randomBytes(32)
  assert.deepEqual(parseEncryptionKey(key.toString('hex')), key)
  assert.deepEqual(parseEncryptionKey(key.toString('base64')), key)
  assert.throws(() => parseEncryptionKey(randomBytes(16).toString('hex')), ConfigError)
  assert.throws(() => parseEncryptionKey('short'), ConfigError)
})
