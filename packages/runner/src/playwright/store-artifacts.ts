import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type Scrubber, scrubHeaders } from '@svc/core'
import { scrubTrace } from './artifacts.ts'
import type { ArtifactFile, Screenshot, ScriptCheckResult, ScriptRunnerContext } from './types.ts'

/** A file a run left that may become one of its result's artifacts. */
export interface ArtifactCandidate {
  kind: 'screenshot' | 'trace' | 'video'
  file: string
  name: string | null
  pageIndex: number | null
  onFailure: boolean
}

/**
 * Copies screenshots, then traces, then videos into artifactsDir (scrubbed where they can be) while they
 * fit the run's limit.
 */
export async function storeArtifacts(
  candidates: ArtifactCandidate[],
  { artifactsDir, playwright }: ScriptRunnerContext,
  scrubber: Scrubber,
): Promise<{
  screenshots: Screenshot[]
  traces: ArtifactFile[]
  videos: ArtifactFile[]
  truncated: boolean
}> {
  const screenshots: Screenshot[] = []
  const traces: ArtifactFile[] = []
  const videos: ArtifactFile[] = []
  let total = 0
  let truncated = false
  const ordered = (['screenshot', 'trace', 'video'] as const).flatMap((kind) =>
    candidates.filter((c) => c.kind === kind),
  )
  if (ordered.length) await mkdir(artifactsDir, { recursive: true })
  for (const candidate of ordered) {
    let data: Buffer
    try {
      data = await readFile(candidate.file)
      // Traces are always rewritten: sensitive headers go even when no secret is set.
      if (candidate.kind === 'trace') data = scrubTrace(data, scrubber)
    } catch {
      continue
    }
    if (total + data.length > playwright.artifactLimitBytes) {
      truncated = true
      continue
    }
    total += data.length
    if (candidate.kind === 'screenshot') {
      const path = `screenshot-${screenshots.length + 1}.png`
      await writeFile(join(artifactsDir, path), data)
      screenshots.push({
        path,
        size: data.length,
        name: candidate.name,
        pageIndex: candidate.pageIndex,
        onFailure: candidate.onFailure,
      })
    } else if (candidate.kind === 'trace') {
      const path = `trace-${traces.length + 1}.zip`
      await writeFile(join(artifactsDir, path), data)
      traces.push({ path, size: data.length })
    } else {
      const path = `video-${videos.length + 1}.webm`
      await writeFile(join(artifactsDir, path), data)
      videos.push({ path, size: data.length })
    }
  }
  return { screenshots, traces, videos, truncated }
}

export function scrubResult(result: ScriptCheckResult, scrubber: Scrubber): ScriptCheckResult {
  const network = result.network.map((entry) => ({
    ...entry,
    requestHeaders: scrubHeaders(entry.requestHeaders ?? undefined, scrubber) ?? null,
    responseHeaders: scrubHeaders(entry.responseHeaders ?? undefined, scrubber) ?? null,
  }))
  return scrubber.deep({ ...result, network })
}
