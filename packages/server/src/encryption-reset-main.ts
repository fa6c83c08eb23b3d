import { parseArgs } from 'node:util'
import { createDb, migrateToLatest } from '@svc/db'
import { systemClock } from './clock.ts'
import { ConfigError, loadConfig } from './config.ts'
import { createSecretBox, keyFingerprint, loadOrCreateEncryptionKey } from './crypto/secret-box.ts'
import { resetSealedValues } from './features/encryption-keys/key-reset.ts'

const USAGE = 'usage: npm run encryption-reset [-- --yes]'

/**
 * For a lost encryption key (`npm run encryption-reset`): re-seals every locked and secret value with
 * SVC_ENCRYPTION_KEY (or the key file), emptying those no configured key opens, and makes that key the
 * store's. Without --yes it only says what it would do. Run it with every server of the store stopped.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { yes: { type: 'boolean' }, help: { type: 'boolean' } } })
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const config = loadConfig()
  const key = loadOrCreateEncryptionKey(config.encryptionKey, config.dataDir)
  const store = createDb(config.databaseUrl)
  try {
    await migrateToLatest(store)
    const ctx = {
      db: store.db,
      clock: systemClock,
      secretBox: createSecretBox(key, config.previousEncryptionKeys),
    }
    const outcome = await resetSealedValues(ctx, values.yes === true)
    const verb = values.yes ? '' : ' would be'
    const lines = [
      `${outcome.resealed} sealed values${verb} re-sealed with the key with fingerprint ${keyFingerprint(key)}`,
      `${outcome.emptied.length} rows${verb} emptied of values no configured key opens${outcome.emptied.length > 0 ? ':' : ''}`,
      ...outcome.emptied.map((row) => `  ${row}`),
      values.yes
        ? 'the store now expects this key: set the emptied values again through the API'
        : 'nothing changed: run again with --yes (every server of the store stopped) to do it',
    ]
    process.stdout.write(`${lines.join('\n')}\n`)
  } finally {
    await store.close()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    error instanceof ConfigError
      ? `svc encryption-reset: ${error.message}\n`
      : `svc encryption-reset failed: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
  )
  process.exit(1)
})
