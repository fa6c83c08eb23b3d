import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { ScriptProject } from '@svc/core'
import { ffmpegPath } from './ffmpeg.ts'
import { ALLOWED_PACKAGES } from './imports.ts'
import type { PlaywrightProxy } from './proxy.ts'
import {
  DEFAULT_TIMEOUTS_MS,
  MAX_LOG_TEXT,
  NODE_MODULES,
  PLAYWRIGHT_CLI,
  PRELOAD,
  REPORTER,
  TEARDOWN_GRACE_MS,
} from './run-settings.ts'
import type { ScriptCheckType, ScriptJob, ScriptRunnerContext } from './types.ts'

/** Plain scripts drive the browser themselves; the rest are @playwright/test tests. */
function usesTestRunner(source: string): boolean {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
  return (
    /['"]@playwright\/test['"]/.test(code) &&
    /(^|[^\w.$])test(\.(describe|only|skip|fixme|fail|slow|serial|parallel))*\s*\(/m.test(code)
  )
}

export interface PreparedRun {
  checkType: ScriptCheckType
  mode: 'test' | 'script'
  workDir: string
  /** The account's compile cache (NODE_COMPILE_CACHE). */
  compileCache: string
  runtimeId: string
  eventsFile: string
  outputDir: string
  args: string[]
  env: Record<string, string>
  /** The account's warm-up writes the compile cache that its runs in the sandbox only read. */
  warmUp?: boolean
}

/** Writes the run's project, its config and the files the child reads into workDir. */
export async function prepare(
  checkType: ScriptCheckType,
  job: ScriptJob,
  project: ScriptProject,
  workDir: string,
  runtimeId: string,
  browser: { wsEndpoint: string | null; proxy: PlaywrightProxy | null },
  ctx: ScriptRunnerContext,
): Promise<PreparedRun> {
  const { wsEndpoint, proxy } = browser
  // The account's own: no other account's run sees it.
  const compileCache = await ctx.playwright.compileCacheOf(job.accountId ?? '')
  const svcDir = join(workDir, '.svc')
  const outputDir = join(svcDir, 'test-results')
  await writeProject(project, workDir, svcDir)
  const entrySource = project.entry
    ? (project.files.find((f) => f.path === project.entry)?.content ?? '')
    : ''
  const mode = checkType === 'BROWSER' && !usesTestRunner(entrySource) ? 'script' : 'test'
  const eventsFile = join(svcDir, 'events.jsonl')
  const timeoutMs = job.timeoutMs ?? DEFAULT_TIMEOUTS_MS[checkType]
  const runConfig = join(svcDir, 'run.json')
  await writeFile(
    runConfig,
    JSON.stringify({
      mode: mode === 'script' ? 'plain' : 'test',
      runDir: workDir,
      eventsFile,
      screenshotsDir: join(svcDir, 'screenshots'),
      tracesDir: join(svcDir, 'traces'),
      outputDir,
      allowedPackages: ALLOWED_PACKAGES,
      runtimeId,
      proxy,
      maxPages: ctx.playwright.maxPages,
      // Without ffmpeg a test asking for a video runs without one (and says so) rather than failing.
      videos: ffmpegPath() !== null,
      // The child cuts longer texts before writing them (one more character tells they were cut).
      maxText: MAX_LOG_TEXT + 1,
    }),
  )
  const layout = { workDir, svcDir, outputDir, timeoutMs, proxy }
  const args =
    mode === 'script'
      ? [join(workDir, project.entry as string)]
      : checkType === 'AUTOMATION'
        ? await suiteArgs(project, job, layout)
        : await testArgs(project, layout)
  const env = runEnvironment(job, { svcDir, runtimeId, runConfig, compileCache, wsEndpoint }, ctx)
  return { checkType, mode, workDir, compileCache, runtimeId, eventsFile, outputDir, args, env }
}

interface RunLayout {
  workDir: string
  svcDir: string
  outputDir: string
  timeoutMs: number
  proxy: PlaywrightProxy | null
}

async function writeProject(project: ScriptProject, workDir: string, svcDir: string) {
  await Promise.all(
    ['home', 'tmp', 'screenshots', 'traces'].map((name) => mkdir(join(svcDir, name), { recursive: true })),
  )
  for (const file of project.files) {
    const path = join(workDir, file.path)
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, file.content)
  }
  await symlink(NODE_MODULES, join(workDir, 'node_modules'), 'dir')
}

/**
 * A suite runs with its own config, wrapped beside it (its relative paths keep their meaning): the
 * suite's own globalTimeout applies, within the run's limit (a --global-timeout flag would overrule it).
 */
async function suiteArgs(project: ScriptProject, job: ScriptJob, layout: RunLayout): Promise<string[]> {
  const configPath = join(layout.workDir, project.configPath as string)
  const wrapper = join(dirname(configPath), '.svc.playwright.config.ts')
  await writeFile(
    wrapper,
    `import * as suite from ${JSON.stringify(`./${basename(configPath)}`)}
const config: any = (suite as any).default ?? suite
const limit = ${layout.timeoutMs}
const proxy = ${JSON.stringify(layout.proxy)}
export default {
  ...config,
  globalTimeout: config.globalTimeout > 0 ? Math.min(config.globalTimeout, limit) : limit,
  ...(proxy ? { use: { proxy, ...config.use } } : {}),
}
`,
  )
  return [
    PLAYWRIGHT_CLI,
    'test',
    '--config',
    wrapper,
    '--reporter',
    REPORTER,
    '--trace',
    'on',
    '--output',
    layout.outputDir,
    '--workers',
    '1',
    '--retries',
    '0',
    ...(job.grep ? ['--grep', job.grep] : []),
  ]
}

/** A browser or multi-step check's test file runs under a config of svc's own. */
async function testArgs(project: ScriptProject, layout: RunLayout): Promise<string[]> {
  const { workDir, svcDir, outputDir, timeoutMs, proxy } = layout
  const configFile = join(svcDir, 'playwright.config.cjs')
  const entry = join(workDir, project.entry as string)
  await writeFile(
    configFile,
    `module.exports = ${JSON.stringify({
      testDir: workDir,
      timeout: timeoutMs,
      globalTimeout: timeoutMs + TEARDOWN_GRACE_MS,
      workers: 1,
      retries: 0,
      outputDir,
      reporter: [[REPORTER]],
      use: { trace: 'on', ...(proxy ? { proxy } : {}) },
    })}\nmodule.exports.testMatch = new RegExp(${JSON.stringify(`^${escapeRegExp(entry)}$`)})\n`,
  )
  return [PLAYWRIGHT_CLI, 'test', '--config', configFile]
}

function runEnvironment(
  job: ScriptJob,
  run: {
    svcDir: string
    runtimeId: string
    runConfig: string
    compileCache: string
    wsEndpoint: string | null
  },
  ctx: ScriptRunnerContext,
): Record<string, string> {
  const env: Record<string, string> = {}
  for (const variable of job.environmentVariables ?? []) env[variable.key] = variable.value
  Object.assign(env, {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: join(run.svcDir, 'home'),
    TMPDIR: join(run.svcDir, 'tmp'),
    SVC: 'true',
    CI: 'true',
    SVC_CHECK_NAME: job.name,
    SVC_RUN_LOCATION: job.runLocation,
    SVC_RUNTIME_ID: run.runtimeId,
    SVC_RUN_CONFIG: run.runConfig,
    FORCE_COLOR: '0',
    // Compiled code shared by the account's runs saves most of a test run's start-up. Transformed
    // scripts are the run's own: they hold its script and config (the proxy's password).
    NODE_COMPILE_CACHE: run.compileCache,
    PLAYWRIGHT_TRANSFORM_CACHE_DIR: join(run.svcDir, 'transform-cache'),
    NODE_OPTIONS: `--require="${PRELOAD}" --max-old-space-size=${ctx.playwright.heapLimitMb} --disable-warning=ExperimentalWarning`,
  })
  // Only in the run's environment, never in its files: without the sandbox another run may read
  // those, and the endpoint opens every page of the browser.
  if (run.wsEndpoint) env.PW_TEST_CONNECT_WS_ENDPOINT = run.wsEndpoint
  return env
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}
