import { accessSync, constants } from 'node:fs'
import { join } from 'node:path'
import { SANDBOX_PATH } from './sandbox.ts'

/**
 * The ffmpeg a Chromium host records videos with (`child/browser-host.cjs` finds it the same way): the
 * first on the PATH Chromium hosts get, Debian's `/usr/bin/ffmpeg` once `apt-get install ffmpeg` ran.
 */
export function ffmpegPath(): string | null {
  for (const dir of SANDBOX_PATH.split(':')) {
    const path = join(dir, 'ffmpeg')
    try {
      accessSync(path, constants.X_OK)
      return path
    } catch {}
  }
  return null
}
