import { createDb, migrateToLatest } from '@svc/db'
import { systemClock } from './clock.ts'
import type { Config } from './config.ts'
import { openStoreSecretBox } from './features/encryption-keys/key-verification.ts'

/**
 * The configured store, migrated, and the box of its secrets (checked against the store's key verifier).
 * A server makes the key file on its first start (`createKey`); a runner node only reads it.
 */
export async function openKeyedStore(config: Config, options: { createKey: boolean }) {
  const store = createDb(config.databaseUrl)
  await migrateToLatest(store)
  const secretBox = await openStoreSecretBox(
    { db: store.db, clock: systemClock },
    {
      configured: config.encryptionKey,
      previous: config.previousEncryptionKeys,
      dataDir: config.dataDir,
      create: options.createKey,
    },
  )
  return { store, secretBox }
}
