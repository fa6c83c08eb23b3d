import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { ConfigError, parseEncryptionKey } from '../config.ts'
import { createSecretBox, loadOrCreateEncryptionKey } from './secret-box.ts'

test('seals and opens values; every seal differs; tampering and wrong keys fail', () => {
  const box = createSecretBox(randomBytes(32))
  for (const plaintext of ['', 'hunter2', 'ünïcødé ✓ 🙂', 'x'.repeat(10_000)]) {
    assert.equal(box.decrypt(box.encrypt(plaintext)), plaintext)
  }
  const a = box.encrypt('same')
  assert.notEqual(a, box.encrypt('same'))
  assert.match(a, /^v1:[A-Za-z0-9+/=]+$/)
  const bytes = Buffer.from(a.slice(3), 'base64')
  bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1
  assert.throws(() => box.decrypt(`v1:${bytes.toString('base64')}`))
  assert.throws(() => createSecretBox(randomBytes(32)).decrypt(a))
  assert.throws(() => box.decrypt('v0:abc'), /version/)
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
