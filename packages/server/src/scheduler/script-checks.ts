import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import {
  DETAIL_KEYS,
  PlaywrightPool,
  type RunnerJob,
  type SCRIPT_CHECK_TYPES,
  type ScriptJob,
} from '@svc/runner'
import type { Config } from '../config.ts'
import type { ServiceContext } from '../context.ts'
import { getAccount } from '../features/accounts/accounts.service.ts'
import type { ResolvedCheck } from '../features/checks/checks.service.ts'
import type { RunVariables } from './run-variables.ts'

/** The Playwright pool (Chromium starts on first use) and where script checks keep their artifacts. */
export function scriptRunnerOf(config: Pick<Config, 'chromiumPath' | 'browserConcurrency' | 'dataDir'>) {
  return {
    pool: new PlaywrightPool({ chromiumPath: config.chromiumPath, concurrency: config.browserConcurrency }),
    artifactsDir: join(config.dataDir, 'artifacts'),
  }
}

/** The key of each script type's detail in a stored result. */
export const SCRIPT_DETAIL_KEYS = {
  BROWSER: DETAIL_KEYS.BROWSER,
  MULTI_STEP: DETAIL_KEYS.MULTI_STEP,
  AUTOMATION: DETAIL_KEYS.AUTOMATION,
} as const

export function isScriptCheckType(checkType: string): checkType is keyof typeof SCRIPT_DETAIL_KEYS {
  return checkType in SCRIPT_DETAIL_KEYS
}

/** Where the screenshots and traces of one result are kept. */
export function resultArtifactsDir(ctx: ServiceContext, checkId: string, resultId: string): string {
  return join(ctx.scripts.artifactsDir, checkId, resultId)
}

export async function removeArtifacts(ctx: ServiceContext, checkId: string, resultId?: string) {
  const dir = resultId ? resultArtifactsDir(ctx, checkId, resultId) : join(ctx.scripts.artifactsDir, checkId)
  await rm(dir, { recursive: true, force: true })
}

/**
 * The job of a browser, multi-step or suite check: the merged variables reach the script as
 * `process.env`; its runtime is the check's, else its group's, else the account's. A browser check's
 * `sslCheckDomain` certificate is read beside the run.
 */
export async function scriptJobOf(
  ctx: ServiceContext,
  check: ResolvedCheck,
  variables: RunVariables,
  location: string,
): Promise<RunnerJob> {
  const checkType = check.row.check_type as (typeof SCRIPT_CHECK_TYPES)[number]
  const runtimeId =
    check.effective.runtimeId ?? (await getAccount(ctx, check.row.account_id)).runtimeId ?? null
  const definition = check.definition as Record<string, unknown>
  return {
    checkType,
    sslCheckDomain: definition.sslCheckDomain as string | null | undefined,
    script: {
      name: check.definition.name,
      script: definition.script as string | undefined,
      scriptPath: definition.scriptPath as string | null | undefined,
      dependencies: definition.dependencies as ScriptJob['dependencies'],
      playwrightConfigPath: definition.playwrightConfigPath as string | null | undefined,
      grep: definition.grep as string | null | undefined,
      shouldFail: Boolean(definition.shouldFail),
      runtimeId,
      runLocation: location,
      environmentVariables: [...variables.values].map(([key, value]) => ({
        key,
        value,
        secret: variables.hiddenKeys.has(key),
      })),
      secrets: variables.hidden,
    },
  }
}
