import { gunzip } from 'node:zlib'

/** One regular file of an archive: its path inside it (`/` separators) and its bytes. */
export interface ArchiveFile {
  path: string
  bytes: Buffer
}

/** Why bytes are not a readable gzipped tar (or one past the limits). */
export class BadArchive extends Error {}

const BLOCK = 512

/**
 * The regular files of a gzipped tar (ustar, pax and GNU long names, as `tar` and the hosted CLI's
 * archiver write them). Directories and links are skipped. Unpacking past `maxBytes` fails, so a small
 * upload can't expand into a huge one.
 */
export async function readTarGz(gzipped: Buffer, maxBytes: number): Promise<ArchiveFile[]> {
  const tar = await new Promise<Buffer>((resolve, reject) =>
    gunzip(gzipped, { maxOutputLength: maxBytes }, (error, out) =>
      error ? reject(new BadArchive(unzipProblem(error, maxBytes))) : resolve(out),
    ),
  )
  return readTar(tar)
}

function unzipProblem(error: Error & { code?: string }, maxBytes: number): string {
  if (error.code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError)
    return `it unpacks to more than ${maxBytes} bytes`
  return 'it is not gzip data'
}

function readTar(tar: Buffer): ArchiveFile[] {
  const files: ArchiveFile[] = []
  let offset = 0
  let longName: string | undefined
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK)
    if (header.every((byte) => byte === 0)) return files
    if (!validChecksum(header)) throw new BadArchive(`it is not a tar archive (bad header at byte ${offset})`)
    const size = octal(header.subarray(124, 136))
    const type = String.fromCharCode(header[156] as number)
    const start = offset + BLOCK
    if (start + size > tar.length) throw new BadArchive('the tar archive is cut short')
    const body = tar.subarray(start, start + size)
    offset = start + Math.ceil(size / BLOCK) * BLOCK
    if (type === 'x' || type === 'L') {
      longName = type === 'L' ? text(body) : (paxPath(body) ?? longName)
      continue
    }
    const path = longName ?? headerPath(header)
    longName = undefined
    if (type === '0' || type === '\0' || type === '7')
      files.push({ path: clean(path), bytes: Buffer.from(body) })
  }
  if (files.length === 0) throw new BadArchive('it is not a tar archive')
  return files
}

function headerPath(header: Buffer): string {
  const name = text(header.subarray(0, 100))
  const isUstar = header.subarray(257, 262).toString('latin1') === 'ustar'
  const prefix = isUstar ? text(header.subarray(345, 500)) : ''
  return prefix ? `${prefix}/${name}` : name
}

/** `path=` of a pax extended header (records are `<length> <key>=<value>\n`). */
function paxPath(body: Buffer): string | undefined {
  for (const record of body.toString('utf8').split('\n')) {
    const match = /^\d+ path=(.*)$/s.exec(record)
    if (match) return match[1]
  }
  return undefined
}

function clean(path: string): string {
  return path.replace(/^(\.\/)+/, '')
}

function text(bytes: Buffer): string {
  const end = bytes.indexOf(0)
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString('utf8')
}

function octal(field: Buffer): number {
  // Sizes past 8 GB use base-256; nothing that large gets past the unpacking limit.
  const value = Number.parseInt(text(field).trim() || '0', 8)
  if (!Number.isFinite(value) || value < 0) throw new BadArchive('it is not a tar archive (bad size)')
  return value
}

function validChecksum(header: Buffer): boolean {
  let sum = 0
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] as number)
  return sum === Number.parseInt(text(header.subarray(148, 156)).trim(), 8)
}
