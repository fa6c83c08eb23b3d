import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseEncryptionKey } from '../config.ts'

/** AES-256-GCM for values at rest (locked and secret variables). Output: `v1:` + base64(iv | tag | ciphertext). */
export interface SecretBox {
  encrypt(plaintext: string): string
  decrypt(sealed: string): string
}

const VERSION = 'v1:'

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('AES-256-GCM needs a 32-byte key')
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')
    },
    decrypt(sealed) {
      if (!sealed.startsWith(VERSION)) throw new Error('unknown sealed value version')
      const bytes = Buffer.from(sealed.slice(VERSION.length), 'base64')
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
      decipher.setAuthTag(bytes.subarray(12, 28))
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
    },
  }
}

/** The configured key, else the one generated into `dataDir` earlier; undefined when there is none. */
export function loadEncryptionKey(configured: Buffer | undefined, dataDir: string): Buffer | undefined {
  if (configured) return configured
  const path = join(dataDir, 'encryption.key')
  return existsSync(path) ? parseEncryptionKey(readFileSync(path, 'utf8').trim()) : undefined
}

/**
 * The configured key, or the one kept in `dataDir/encryption.key`, created (mode 0600) on first start.
 * Several nodes on one PostgreSQL must share SVC_ENCRYPTION_KEY instead.
 */
export function loadOrCreateEncryptionKey(configured: Buffer | undefined, dataDir: string): Buffer {
  const existing = loadEncryptionKey(configured, dataDir)
  if (existing) return existing
  const path = join(dataDir, 'encryption.key')
  mkdirSync(dataDir, { recursive: true })
  const key = randomBytes(32)
  writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' })
  return key
}
