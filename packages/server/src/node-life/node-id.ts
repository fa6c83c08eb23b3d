import { randomUUID } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The node's id: SVC_NODE_ID when set, else the one kept in `dataDir/node-id` (made on first start), so
 * that it survives restarts. Every process started on one data directory is a life of the same node.
 */
export function loadOrCreateNodeId(configured: string | undefined, dataDir: string): string {
  if (configured) return configured
  const path = join(dataDir, 'node-id')
  try {
    return readFileSync(path, 'utf8').trim()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  mkdirSync(dataDir, { recursive: true })
  const id = randomUUID()
  // Written whole beside it, then linked into place: a process starting alongside reads all of it or none.
  const written = `${path}.${id}`
  writeFileSync(written, `${id}\n`)
  try {
    linkSync(written, path)
    return id
  } catch (error) {
    // Another process of this data directory made it first.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return readFileSync(path, 'utf8').trim()
  } finally {
    rmSync(written, { force: true })
  }
}
