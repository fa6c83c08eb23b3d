import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { missingComponent } from '@svc/core/testing'
import { listenOnLoopback } from '../testing/loopback.ts'
import { ffmpegPath } from './ffmpeg.ts'
import { chromiumAvailable, DEFAULT_CHROMIUM_PATH, PlaywrightPool } from './pool.ts'
import type { ScriptRunnerContext } from './types.ts'
import { readZip } from './zip.ts'

/** Browser tests run where Chromium is; elsewhere they are skipped, and say so loudly (in CI they fail). */
export function browserTestsSkipReason(): string | false {
  if (chromiumAvailable(DEFAULT_CHROMIUM_PATH)) return false
  return missingComponent(`Chromium (${DEFAULT_CHROMIUM_PATH})`, 'browser tests', 'apt-get install chromium')
}

/** Video tests need Chromium and ffmpeg; without them they are skipped, and say so loudly (in CI they fail). */
export function videoTestsSkipReason(): string | false {
  return browserTestsSkipReason() || ffmpegSkipReason()
}

/** Tests of recorded videos need ffmpeg; without it they are skipped, and say so loudly (in CI they fail). */
export function ffmpegSkipReason(): string | false {
  if (ffmpegPath()) return false
  return missingComponent('ffmpeg', 'video tests', 'apt-get install ffmpeg')
}

/** ICMP tests run the system ping; without it they are skipped, and say so loudly (in CI they fail). */
export function pingSkipReason(): string | false {
  const found = (process.env.PATH ?? '').split(':').some((dir) => {
    try {
      accessSync(join(dir, 'ping'), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
  return found ? false : missingComponent('ping', 'ICMP tests', 'apt-get install iputils-ping')
}

/** WebM files start with the EBML magic number. */
export const WEBM_MAGIC = Buffer.from([0x1a, 0x45, 0xdf, 0xa3])

export interface Site {
  url: string
  requests: { url: string; headers: IncomingMessage['headers'] }[]
  close(): Promise<void>
}

/** A loopback HTTP server answering `routes` by path (unknown paths are 404). */
export async function startSite(
  routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void>,
): Promise<Site> {
  const requests: Site['requests'] = []
  const server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers })
    const path = new URL(request.url ?? '/', 'http://x').pathname
    const route = routes[path]
    if (route) route(request, response)
    else {
      response.statusCode = 404
      response.end('not found')
    }
  })
  const { url } = await listenOnLoopback(server)
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function html(body: string) {
  return (_request: IncomingMessage, response: ServerResponse) => {
    response.setHeader('content-type', 'text/html')
    response.end(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`)
  }
}

/** One pool for a test file, and a fresh artifacts directory per run. */
export function scriptTestContext(pool: PlaywrightPool): {
  ctx: () => ScriptRunnerContext
  cleanup: () => void
} {
  // Made at the first run: a describe whose tests a --test-name-pattern filters out never runs its `after`.
  let root: string | undefined
  let runs = 0
  return {
    ctx: () => {
      root ??= mkdtempSync(join(tmpdir(), 'svc-artifacts-'))
      return { now: () => new Date(), playwright: pool, artifactsDir: join(root, `run-${++runs}`) }
    },
    cleanup: () => {
      if (root !== undefined) rmSync(root, { recursive: true, force: true })
    },
  }
}

/** Every stored byte of a run's artifacts, trace archives unpacked, for searching. */
export function artifactBytes(artifactsDir: string): { name: string; data: Buffer }[] {
  let names: string[] = []
  try {
    names = readdirSync(artifactsDir)
  } catch {
    return []
  }
  return names.flatMap((name) => {
    const data = readFileSync(join(artifactsDir, name))
    if (!name.endsWith('.zip')) return [{ name, data }]
    return [
      { name, data },
      ...readZip(data).map((entry) => ({ name: `${name}/${entry.name}`, data: entry.data })),
    ]
  })
}

/** Every process below `pid`, found through /proc. */
export function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {}
  }
  const found: number[] = []
  const visit = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid !== parent) continue
      found.push(child)
      visit(child)
    }
  }
  visit(pid)
  return found
}

export { PlaywrightPool }
