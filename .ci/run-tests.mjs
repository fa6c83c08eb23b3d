// Runs the test suite: every `packages/*/src/**/*.test.ts`, or the files and globs given as arguments.
//
// `node --test` always starts files in name order, so the slowest files (browser and process tests) could
// start last and leave one worker running alone at the end. This runner starts the longest files first,
// by the file times of the last run on this machine (kept in node_modules/.cache) or, on a fresh clone,
// by the times committed in .ci/test-file-times.json. A file with no recorded time counts as a file of
// median time: a new file is as likely to be slow as not.
import { globSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, relative, resolve } from 'node:path'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'
import { fileURLToPath } from 'node:url'
import slowestTestFiles from './slowest-test-files.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const committedTimes = resolve(root, '.ci/test-file-times.json')
const localTimes = resolve(root, 'node_modules/.cache/svc-test-file-times.json')

function readTimes(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return {}
  }
}

function testFiles(patterns) {
  const globs = patterns.length > 0 ? patterns : ['packages/*/src/**/*.test.ts']
  const found = globs.flatMap((glob) =>
    globSync(glob, { cwd: root, exclude: (p) => p.includes('node_modules') }),
  )
  return [...new Set(found.map((file) => relative(root, resolve(root, file))))]
}

/** Longest first; a file never timed counts as the median one. */
function longestFirst(files, times) {
  const recorded = Object.values(times).sort((a, b) => a - b)
  const median = recorded[Math.floor(recorded.length / 2)] ?? 0
  const time = (file) => times[file] ?? median
  return [...files].sort((a, b) => time(b) - time(a) || a.localeCompare(b))
}

function concurrency() {
  const set = Number(process.env.SVC_TEST_CONCURRENCY)
  if (Number.isInteger(set) && set > 0) return set
  // Most of a file's time is spent waiting (on Chromium, child processes, timers and the database), so
  // two files per core keep the cores busy without starving the waits.
  return Math.max(2, availableParallelism() * 2)
}

const times = { ...readTimes(committedTimes), ...readTimes(localTimes) }
const files = longestFirst(testFiles(process.argv.slice(2)), times)
const stream = run({
  files: files.map((file) => resolve(root, file)),
  concurrency: concurrency(),
  timeout: 300_000,
  execArgv: ['--disable-warning=ExperimentalWarning'],
})

// Each file's time is kept as soon as it is known, so a run stopped halfway still informs the next.
function keepFileTime(file, ms) {
  mkdirSync(dirname(localTimes), { recursive: true })
  const kept = { ...readTimes(localTimes), [file]: Math.round(ms) }
  const sorted = Object.fromEntries(Object.entries(kept).sort(([a], [b]) => a.localeCompare(b)))
  writeFileSync(localTimes, `${JSON.stringify(sorted, null, 2)}\n`)
}

stream.on('test:fail', () => {
  process.exitCode = 1
})
stream.on('test:summary', (data) => {
  if (data.file) keepFileTime(relative(root, data.file), data.duration_ms)
  if (data.file === undefined && data.success === false) process.exitCode = 1
})
stream.compose(spec).pipe(process.stdout)
stream.compose(slowestTestFiles).pipe(process.stdout)
