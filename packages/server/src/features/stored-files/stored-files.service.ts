import { randomUUID } from 'node:crypto'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, notFound } from '../../http/errors.ts'
import * as repo from './stored-files.repo.ts'
import { type ArchiveFile, BadArchive, readTarGz } from './tar-gz.ts'

/** The most an upload may hold (a code bundle gzipped, or any other file). */
export const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024
/** The most a code bundle may unpack to. */
export const UNPACKED_LIMIT_BYTES = 50 * 1024 * 1024
/** A code bundle only has to live until the deploy that names it, which follows its upload at once. */
const CODE_BUNDLE_KEEP_MS = 24 * 60 * 60 * 1000

const CODE_BUNDLE = 'code-bundle'

/** Stores a Playwright project's code bundle (a gzipped tar); a 400 if it isn't one. Answers its key. */
export async function storeCodeBundle(ctx: ServiceContext, accountId: string, bytes: Buffer) {
  await unpack(bytes, 'The code bundle')
  const before = new Date(ctx.clock.now().getTime() - CODE_BUNDLE_KEEP_MS).toISOString()
  await repo.deleteOlderThan(ctx, CODE_BUNDLE, before)
  return store(ctx, accountId, CODE_BUNDLE, bytes)
}

/** Stores any file (the hosted CLI uploads a browser check's snapshots so). Answers its key. */
export async function storeFile(ctx: ServiceContext, accountId: string, bytes: Buffer) {
  return store(ctx, accountId, 'file', bytes)
}

export async function readFile(ctx: ServiceContext, accountId: string, key: string): Promise<Buffer> {
  const row = await repo.findFile(ctx, accountId, key)
  if (!row) throw notFound(`No file is stored under ${key}`)
  return Buffer.from(row.content)
}

/** The files of the code bundle stored under `key`, or undefined when there is none. */
export async function codeBundleFiles(
  ctx: ServiceContext,
  accountId: string,
  key: string,
): Promise<ArchiveFile[] | undefined> {
  const row = await repo.findFile(ctx, accountId, key, CODE_BUNDLE)
  return row ? unpack(Buffer.from(row.content), `The code bundle ${key}`) : undefined
}

async function store(ctx: ServiceContext, accountId: string, kind: string, bytes: Buffer) {
  if (bytes.length === 0) throw badRequest('The upload is empty')
  const key = `${kind}s/${randomUUID()}`
  await repo.insertFile(ctx, { key, account_id: accountId, kind, content: bytes, created_at: isoNow(ctx) })
  return { key }
}

async function unpack(bytes: Buffer, what: string): Promise<ArchiveFile[]> {
  try {
    return await readTarGz(bytes, UNPACKED_LIMIT_BYTES)
  } catch (error) {
    if (error instanceof BadArchive) throw badRequest(`${what} can't be read: ${error.message}`)
    throw error
  }
}
