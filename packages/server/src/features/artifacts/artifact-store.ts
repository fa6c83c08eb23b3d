import { createReadStream } from 'node:fs'
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import type { ArtifactStore, StagedRun, StoredResult } from '../../context.ts'

/** What the screenshots, traces and videos of one run may add up to (the spec's per-run artifact limit). */
export const ARTIFACT_LIMIT_BYTES = 150 * 1024 * 1024

const ID = /^[A-Za-z0-9_-]{1,100}$/

/**
 * `checkId/resultId/path`, or undefined for a path that would leave the result (`..`, `.`, empty
 * segments, backslashes): S3 URLs and file paths would both resolve those elsewhere.
 */
export function artifactKey(checkId: string, resultId: string, path = ''): string | undefined {
  if (!ID.test(checkId) || !ID.test(resultId)) return undefined
  if (path === '') return `${checkId}/${resultId}`
  if (path.length > 1024 || /[\\\0]/.test(path)) return undefined
  if (path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
    return undefined
  return `${checkId}/${resultId}/${path}`
}

export function checkKey(checkId: string): string | undefined {
  return ID.test(checkId) ? checkId : undefined
}

/** Every file under `dir`, as paths relative to it with `/` separators. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(dir.length + 1)
        .split('\\')
        .join('/'),
    )
    .sort()
}

/** Artifacts under `root` (SVC_DATA_DIR/artifacts); a run writes straight into its result's directory. */
export class LocalArtifactStore implements ArtifactStore {
  readonly kind = 'local'
  readonly root: string
  readonly limitBytes: number

  constructor(root: string, limitBytes = ARTIFACT_LIMIT_BYTES) {
    this.root = root
    this.limitBytes = limitBytes
  }

  #path(checkId: string, resultId: string, path?: string): string | undefined {
    const key = artifactKey(checkId, resultId, path)
    return key === undefined ? undefined : join(this.root, key)
  }

  async stage(checkId: string, resultId: string): Promise<StagedRun> {
    const dir = this.#path(checkId, resultId)
    if (!dir) throw new Error(`not an artifact location: ${checkId}/${resultId}`)
    return { dir, commit: async () => {}, discard: () => rm(dir, { recursive: true, force: true }) }
  }

  async put(checkId: string, resultId: string, path: string, bytes: Buffer): Promise<void> {
    const file = this.#path(checkId, resultId, path)
    if (!file) throw new Error(`not an artifact path: ${path}`)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, bytes)
  }

  async open(checkId: string, resultId: string, path: string): Promise<Readable | undefined> {
    const file = this.#path(checkId, resultId, path)
    if (!file || !(await stat(file).catch(() => undefined))?.isFile()) return undefined
    return createReadStream(file)
  }

  async size(checkId: string, resultId: string): Promise<number> {
    const dir = this.#path(checkId, resultId)
    if (!dir) return 0
    let total = 0
    for (const path of await filesUnder(dir)) total += (await stat(join(dir, path))).size
    return total
  }

  async removeResult(checkId: string, resultId: string): Promise<void> {
    const dir = this.#path(checkId, resultId)
    if (dir) await rm(dir, { recursive: true, force: true })
  }

  async removeCheck(checkId: string): Promise<void> {
    const key = checkKey(checkId)
    if (key) await rm(join(this.root, key), { recursive: true, force: true })
  }

  async listResults(): Promise<StoredResult[]> {
    const results: StoredResult[] = []
    for (const checkId of await readdir(this.root).catch(() => [] as string[])) {
      for (const resultId of await readdir(join(this.root, checkId)).catch(() => [] as string[])) {
        const info = await stat(join(this.root, checkId, resultId)).catch(() => undefined)
        if (info) results.push({ checkId, resultId, modifiedMs: info.mtimeMs })
      }
    }
    return results
  }
}
