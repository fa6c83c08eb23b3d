import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** Working directories of runs (`svc-run-PID-POOL-SLOT`) and of a pool's Chromiums (`svc-browser-PID-POOL-N`). */
const WORK_DIR_NAME = /^svc-(?:run|browser)-(\d+)-\d+(?:-\d+)?$/

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Directories of our naming in `workRoot` whose process is gone (a crash); live processes' stay. */
export async function removeLeftoverWorkDirs(workRoot: string): Promise<void> {
  const names = await readdir(workRoot).catch(() => [] as string[])
  await Promise.all(
    names.map(async (name) => {
      const pid = Number(WORK_DIR_NAME.exec(name)?.[1] ?? 0)
      if (!pid || pid === process.pid || processAlive(pid)) return
      await rm(join(workRoot, name), { recursive: true, force: true }).catch(() => {})
    }),
  )
}
