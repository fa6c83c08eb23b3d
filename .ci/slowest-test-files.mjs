// A node:test reporter that prints, at the end of a run, the test files that took the longest (wall time of
// each file's tests). The suite has a 20-minute budget; each run's log then says where its time went.
import { relative } from 'node:path'

const SHOWN = 15

export default async function* slowestTestFiles(source) {
  const files = []
  for await (const event of source) {
    const { data } = event
    // Each file's run ends with a summary naming it; the whole run's has no file.
    if (event.type === 'test:summary' && data.file) {
      files.push({ file: relative(process.cwd(), data.file), ms: data.duration_ms })
    }
    if (event.type === 'test:summary' && data.file === undefined && files.length > 0) {
      const total = files.reduce((sum, f) => sum + f.ms, 0)
      const lines = files
        .sort((a, b) => b.ms - a.ms)
        .slice(0, SHOWN)
        .map(
          (f) =>
            `${(f.ms / 1000).toFixed(1).padStart(7)} s  ${((100 * f.ms) / total).toFixed(1).padStart(4)}%  ${f.file}`,
        )
      yield `\nslowest test files (of ${files.length}, ${(total / 1000).toFixed(0)} s of file time in all):\n${lines.join('\n')}\n`
    }
  }
}
