import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * AES-256-GCM for values at rest (locked and secret variables, sealed channel secrets). Output:
 * `v2:<key id>:` + base64(iv | tag | ciphertext), where the key id is the key's fingerprint, so a value
 * is opened with the key that sealed it. Values sealed before key ids (`v1:`) are opened by trying each key.
 */
export interface SecretBox {
  /** Seals with the current key. */
  encrypt(plaintext: string): string
  /** Opens with the key that sealed `sealed`, the current one or a previous one. */
  decrypt(sealed: string): string
  /** The current key's fingerprint: what new values are sealed with. */
  readonly keyId: string
  /** Fingerprints of the previous keys, which only open values. */
  readonly previousKeyIds: string[]
  /**
   * A keyed digest of `value` (HMAC-SHA256 with the current key): equal values give equal digests, and
   * without the key a digest says nothing about a short secret. Another key gives other digests.
   */
  digest(value: string): string
}

const LEGACY_PREFIX = 'v1:'
const PREFIX = 'v2:'
const FINGERPRINT_CONTEXT = 'svc encryption key fingerprint v1'
const DIGEST_CONTEXT = 'svc value digest v1\u0000'

/** A key's public name: the start of a SHA-256 over an HMAC of a fixed context, never the key itself. */
export function keyFingerprint(key: Buffer): string {
  const derived = createHmac('sha256', key).update(FINGERPRINT_CONTEXT).digest()
  return createHash('sha256').update(derived).digest('hex').slice(0, 8)
}

/** The fingerprint of the key that sealed `sealed`; undefined for values sealed before key ids. */
export function sealingKeyId(sealed: string): string | undefined {
  if (!sealed.startsWith(PREFIX)) return undefined
  return sealed.slice(PREFIX.length, sealed.indexOf(':', PREFIX.length))
}

export function createSecretBox(key: Buffer, previousKeys: Buffer[] = []): SecretBox {
  for (const k of [key, ...previousKeys]) {
    if (k.length !== 32) throw new Error('AES-256-GCM needs a 32-byte key')
  }
  const keyId = keyFingerprint(key)
  const keys = new Map<string, Buffer>([[keyId, key]])
  for (const previous of previousKeys) {
    const id = keyFingerprint(previous)
    if (!keys.has(id)) keys.set(id, previous)
  }
  return {
    keyId,
    previousKeyIds: [...keys.keys()].filter((id) => id !== keyId),
    digest: (value) =>
      createHmac('sha256', key)
        .update(DIGEST_CONTEXT + value)
        .digest('base64url'),
    encrypt(plaintext) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return `${PREFIX}${keyId}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`
    },
    decrypt(sealed) {
      const id = sealingKeyId(sealed)
      if (id !== undefined) {
        const sealingKey = keys.get(id)
        if (!sealingKey) throw new Error(`sealed with key ${id}, which is not configured`)
        return open(sealingKey, sealed.slice(PREFIX.length + id.length + 1))
      }
      if (!sealed.startsWith(LEGACY_PREFIX)) throw new Error('unknown sealed value version')
      const body = sealed.slice(LEGACY_PREFIX.length)
      let failure: unknown
      for (const candidate of keys.values()) {
        try {
          return open(candidate, body)
        } catch (error) {
          failure = error
        }
      }
      throw failure
    },
  }
}

function open(key: Buffer, base64: string): string {
  const bytes = Buffer.from(base64, 'base64')
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
  decipher.setAuthTag(bytes.subarray(12, 28))
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
}

/** 64 hex characters or the base64 of 32 bytes; undefined for anything else. */
export function decodeEncryptionKey(text: string): Buffer | undefined {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64')
  return key.length === 32 ? key : undefined
}

/** Where the key generated on first start is kept when SVC_ENCRYPTION_KEY is unset. */
export function encryptionKeyFile(dataDir: string): string {
  return join(dataDir, 'encryption.key')
}

/** The configured key, else the one generated into `dataDir` earlier; undefined when there is none. */
export function loadEncryptionKey(configured: Buffer | undefined, dataDir: string): Buffer | undefined {
  if (configured) return configured
  const path = encryptionKeyFile(dataDir)
  if (!existsSync(path)) return undefined
  const key = decodeEncryptionKey(readFileSync(path, 'utf8').trim())
  if (!key) throw new Error(`${path} does not hold a 32-byte key (64 hex characters or base64)`)
  return key
}

/**
 * The configured key, or the one kept in `dataDir/encryption.key`, created (mode 0600) on first start.
 * Several nodes on one PostgreSQL must share SVC_ENCRYPTION_KEY instead.
 */
export function loadOrCreateEncryptionKey(configured: Buffer | undefined, dataDir: string): Buffer {
  const existing = loadEncryptionKey(configured, dataDir)
  if (existing) return existing
  mkdirSync(dataDir, { recursive: true })
  const key = randomBytes(32)
  writeFileSync(encryptionKeyFile(dataDir), `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' })
  return key
}
