import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import type { Config } from '../config.ts'

/** A backup svc refuses to make, with the reason and what to do instead. */
export class BackupError extends Error {}

export interface BackupDone {
  store: string
  target: string
  bytes: number
  /** What the copy of the store doesn't hold and must be kept beside it. */
  alsoKeep: string[]
}

/**
 * Copies the embedded SQLite store of `config` to `target` while servers may be running on it. The copy
 * is one consistent snapshot (VACUUM INTO reads in a single transaction; WAL lets the servers write on
 * meanwhile), written under a temporary name, checked and synced before it takes its name.
 */
export function backupStore(config: Config, target: string): BackupDone {
  if (!config.databaseUrl.startsWith('sqlite:')) {
    throw new BackupError(
      'the store is PostgreSQL (DATABASE_URL): back it up with pg_dump, e.g. pg_dump --format=custom ' +
        '--file=svc.dump "$DATABASE_URL", and restore with pg_restore. This command copies the embedded SQLite store only',
    )
  }
  const store = config.databaseUrl.slice('sqlite:'.length)
  if (!existsSync(store)) {
    throw new BackupError(
      `there is no store at ${store}: set SVC_DATA_DIR to the data directory of the server to back up`,
    )
  }
  const targetPath = resolve(target)
  if (existsSync(targetPath)) throw new BackupError(`${targetPath} exists already: name a new file`)
  if (!existsSync(dirname(targetPath)))
    throw new BackupError(`the directory ${dirname(targetPath)} does not exist`)
  const partial = join(dirname(targetPath), `.${process.pid}.svc-backup-partial`)
  try {
    copySnapshot(store, partial)
    checkCopy(partial)
    syncFile(partial)
    renameSync(partial, targetPath)
    syncFile(dirname(targetPath))
  } finally {
    rmSync(partial, { force: true })
  }
  return { store, target: targetPath, bytes: statSync(targetPath).size, alsoKeep: alsoKeep(config) }
}

function copySnapshot(store: string, into: string): void {
  const source = new DatabaseSync(store, { readOnly: true })
  try {
    // A writer's commit in progress holds the log's lock for a moment: wait for it rather than fail.
    source.exec('PRAGMA busy_timeout = 10000')
    source.prepare('VACUUM INTO ?').run(into)
  } finally {
    source.close()
  }
}

function checkCopy(path: string): void {
  const copy = new DatabaseSync(path, { readOnly: true })
  try {
    const rows = copy.prepare('PRAGMA quick_check').all() as { quick_check: string }[]
    const problems = rows.map((row) => row.quick_check).filter((line) => line !== 'ok')
    if (problems.length > 0) throw new BackupError(`the copy failed its check: ${problems.join('; ')}`)
  } finally {
    copy.close()
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function alsoKeep(config: Config): string[] {
  const keep = [
    config.encryptionKey
      ? 'the encryption key in SVC_ENCRYPTION_KEY (locked and secret values can not be read without it)'
      : `the encryption key file ${join(config.dataDir, 'encryption.key')} (locked and secret values can not be read without it)`,
  ]
  keep.push(
    config.artifactsS3
      ? `the artifacts in the S3 bucket ${config.artifactsS3.bucket}`
      : `the artifacts directory ${join(config.dataDir, 'artifacts')} (screenshots, traces and videos of script runs)`,
  )
  return keep
}
