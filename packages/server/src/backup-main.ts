import { parseArgs } from 'node:util'
import { BackupError, backupStore } from './backup/backup.ts'
import { ConfigError, loadConfig } from './config.ts'

/**
 * `npm run backup -- <file>`: a consistent copy of the embedded SQLite store, made while servers run on it,
 * with the same settings as the server (SVC_DATA_DIR, DATABASE_URL).
 */
function main(): void {
  const { positionals } = parseArgs({ allowPositionals: true })
  const target = positionals[0]
  if (positionals.length !== 1 || !target) {
    throw new BackupError('usage: npm run backup -- <file>  (the copy of the store is written to <file>)')
  }
  const started = performance.now()
  const done = backupStore(loadConfig(), target)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  const megabytes = (done.bytes / 2 ** 20).toFixed(1)
  const lines = [
    `svc: backup of ${done.store} written to ${done.target} (${megabytes} MB, ${seconds} s)`,
    'Keep beside it:',
    ...done.alsoKeep.map((item) => `  - ${item}`),
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

try {
  main()
} catch (error) {
  if (error instanceof BackupError || error instanceof ConfigError) {
    process.stderr.write(`svc backup: ${error.message}\n`)
  } else {
    process.stderr.write(
      `svc backup failed: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
    )
  }
  process.exit(1)
}
