import type { RunnerContext, RunVerdict } from '../types.ts'
import type { PlaywrightPool } from './pool.ts'

export type ScriptCheckType = 'BROWSER' | 'MULTI_STEP' | 'AUTOMATION'

export interface ScriptVariable {
  key: string
  value: string
  locked?: boolean
  secret?: boolean
}

/** One run of a script check: the check's definition plus what the caller resolved for it. */
export interface ScriptJob {
  /** The check's name (SVC_CHECK_NAME). */
  name: string
  /**
   * The check's account: runs of one account share a Chromium, runs of different accounts never do
   * (runs without one share theirs).
   */
  accountId?: string
  /** The entry file's code; AUTOMATION may leave it out when `dependencies` hold the whole project. */
  script?: string
  /** Path of the entry inside the run's project (default `browser-check.spec.js` / `multi-step.spec.js`). */
  scriptPath?: string | null
  dependencies?: { path: string; content: string }[]
  /** The check's, else its group's, else its account's runtime. */
  runtimeId?: string | null
  /** Account, group and check variables merged by the caller (later keys win). */
  environmentVariables?: ScriptVariable[]
  /** More values to scrub from every output besides locked/secret variables and SVC_SECRET_*. */
  secrets?: string[]
  /** SVC_RUN_LOCATION. */
  runLocation: string
  shouldFail?: boolean
  /** Killed after this (default 120 s for BROWSER and MULTI_STEP, 240 s for AUTOMATION). */
  timeoutMs?: number
  /** AUTOMATION: the config inside the project (default `playwright.config.ts`). */
  playwrightConfigPath?: string | null
  /** AUTOMATION: runs only tests whose title matches (Playwright's --grep). */
  grep?: string | null
}

export interface ScriptRunnerContext extends RunnerContext {
  playwright: PlaywrightPool
  /** The run's artifacts (screenshots, traces, videos) are written here; it is created when missing. */
  artifactsDir: string
  /** Aborting stops the run at once (its processes are killed); the result says it was cancelled. */
  signal?: AbortSignal
}

export interface ScriptError {
  message: string
  stack: string | null
}

export interface StepOutcome {
  title: string
  startedAt: string
  duration: number
  status: 'passed' | 'failed'
  error: ScriptError | null
  /** Script-relative `file:line:column`. */
  location: string | null
  steps: StepOutcome[]
}

export interface TestOutcome {
  title: string
  /** describe blocks and the test title */
  titlePath: string[]
  file: string
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted'
  expectedStatus: string
  /** Whether it counts as failing (its status is not the expected one, skips excepted). */
  failed: boolean
  startedAt: string
  duration: number
  errors: ScriptError[]
  steps: StepOutcome[]
}

export interface LogEntry {
  time: string
  level: string
  text: string
  /** The page that logged it; null for the script's own output. */
  pageIndex: number | null
}

export interface NetworkEntry {
  pageIndex: number | null
  url: string
  method: string
  resourceType: string
  status: number | null
  startedAt: string
  /** Milliseconds until the response ended; null when unknown. */
  duration: number | null
  failure: string | null
  requestHeaders: Record<string, string> | null
  responseHeaders: Record<string, string> | null
}

export const WEB_VITALS = ['LCP', 'CLS', 'TBT', 'FCP', 'TTFB'] as const
export type WebVitalName = (typeof WEB_VITALS)[number]
export type WebVitalScore = 'GOOD' | 'NEEDS_IMPROVEMENT' | 'POOR'
export type WebVitals = Record<WebVitalName, { value: number; score: WebVitalScore } | null>

export interface PageResult {
  pageIndex: number
  url: string
  webVitals: WebVitals
}

export interface ArtifactFile {
  /** Relative to the run's artifactsDir. */
  path: string
  size: number
}

export interface Screenshot extends ArtifactFile {
  /** The file name the script gave, if any. */
  name: string | null
  pageIndex: number | null
  /** Taken by svc because the run failed. */
  onFailure: boolean
}

export interface ScriptCheckResult {
  runtimeId: string
  /** `test`: run by the @playwright/test runner; `script`: a plain Node.js script. */
  mode: 'test' | 'script'
  tests: TestOutcome[]
  errors: ScriptError[]
  logs: LogEntry[]
  network: NetworkEntry[]
  pages: PageResult[]
  screenshots: Screenshot[]
  traces: ArtifactFile[]
  /** Playwright's recordings of the tests' pages (`use: { video }`), as WebM. */
  videos: ArtifactFile[]
  /** Some artifacts were left out to keep the run under its artifact limit. */
  artifactsTruncated: boolean
  /** Limits the run ran into (pages closed, memory, logs cut). */
  notes: string[]
}

export type ScriptRunResult = RunVerdict & { checkResult: ScriptCheckResult }
