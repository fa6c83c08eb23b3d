import { findPackageJSON } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ScriptCheckType } from './types.ts'

export const DEFAULT_TIMEOUTS_MS: Record<ScriptCheckType, number> = {
  BROWSER: 120_000,
  MULTI_STEP: 120_000,
  AUTOMATION: 240_000,
}
export const MAX_LOGS = 1000
export const MAX_NETWORK = 1000
export const MAX_MESSAGE = 4000
/** One log entry or script error keeps this much text; a run's logs keep at most MAX_LOG_CHARS. */
export const MAX_LOG_TEXT = 16 * 1024
export const MAX_LOG_CHARS = 1024 * 1024
/** After its global timeout Playwright needs a moment to report; a run still going then is killed. */
export const TEST_RUNNER_GRACE_MS = 20_000
/**
 * A check's test times out first, so it is reported with its steps, screenshot and trace; the global
 * timeout, later, only stops a run whose teardown hangs too. It counts from the runner's start, so it
 * also covers starting Playwright's worker and browser, which took over 5 s on a busy 2-core machine.
 */
export const TEARDOWN_GRACE_MS = 15_000
export const MEMORY_SAMPLE_MS = 1000
/** A cancelled test run gets this long to stop its tests and write their traces before it is killed. */
export const CANCEL_GRACE_MS = 5_000

/** This folder: the child's preload and reporter live here, and error stacks name it `svc/`. */
export const RUNNER_DIR = dirname(fileURLToPath(import.meta.url))
export const PRELOAD = join(RUNNER_DIR, 'child', 'preload.cjs')
export const REPORTER = join(RUNNER_DIR, 'child', 'reporter.cjs')
export const PLAYWRIGHT_CLI = join(
  dirname(findPackageJSON('playwright', import.meta.url) as string),
  'cli.js',
)
export const NODE_MODULES = dirname(
  dirname(dirname(findPackageJSON('@playwright/test', import.meta.url) as string)),
)

/** Text past MAX_LOG_TEXT characters is cut, and says so. */
export function cut(text: string): string {
  return text.length > MAX_LOG_TEXT
    ? `${text.slice(0, MAX_LOG_TEXT)}… (cut at ${MAX_LOG_TEXT} characters)`
    : text
}
