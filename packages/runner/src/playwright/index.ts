import { runScriptCheck } from './run-script.ts'
import type { ScriptJob, ScriptRunnerContext, ScriptRunResult } from './types.ts'

/** A BROWSER check: a @playwright/test test file or a plain script that launches Chromium itself. */
export function runBrowserCheck(job: ScriptJob, ctx: ScriptRunnerContext): Promise<ScriptRunResult> {
  return runScriptCheck('BROWSER', job, ctx)
}

/** A MULTI_STEP check: @playwright/test tests whose API steps use the `request` fixture. */
export function runMultiStepCheck(job: ScriptJob, ctx: ScriptRunnerContext): Promise<ScriptRunResult> {
  return runScriptCheck('MULTI_STEP', job, ctx)
}

/** An AUTOMATION check: a Playwright project (files and a playwright.config) run with its config. */
export function runAutomationCheck(job: ScriptJob, ctx: ScriptRunnerContext): Promise<ScriptRunResult> {
  return runScriptCheck('AUTOMATION', job, ctx)
}

export { ffmpegPath } from './ffmpeg.ts'
export {
  chromiumAvailable,
  DEFAULT_CHROMIUM_PATH,
  PlaywrightPool,
  type PlaywrightPoolOptions,
} from './pool.ts'
export { cancelledBeforeStart } from './run-script.ts'
export { DEFAULT_TIMEOUTS_MS } from './run-settings.ts'
export {
  SCRIPT_SANDBOX_MODES,
  type ScriptSandboxMode,
  type ScriptSandboxStatus,
} from './sandbox.ts'

export * from './types.ts'
