import { join } from 'node:path'
import type { SCRIPT_CHECK_TYPES } from '@svc/core'
import { DETAIL_KEYS, PlaywrightPool, type RunnerJob, type ScriptJob } from '@svc/runner'
import { type Config, ConfigError } from '../config.ts'
import type { ArtifactStore, ServiceContext } from '../context.ts'
import { getAccount } from '../features/accounts/accounts.service.ts'
import { LocalArtifactStore } from '../features/artifacts/artifact-store.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import type { RunVariables } from './run-variables.ts'

/**
 * The Playwright pool (Chromium starts on first use) and where script checks keep their artifacts.
 * Scripts run in the sandbox (`scriptSandbox`) with the data directory hidden; `warn` is told once
 * when `auto` finds no working sandbox.
 */
export function scriptRunnerOf(
  config: Pick<
    Config,
    'chromiumPath' | 'browserConcurrency' | 'dataDir' | 'scriptSandbox' | 'scriptHiddenPaths'
  >,
  artifacts: ArtifactStore = new LocalArtifactStore(join(config.dataDir, 'artifacts')),
  warn?: (message: string) => void,
): ServiceContext['scripts'] {
  return {
    pool: new PlaywrightPool({
      chromiumPath: config.chromiumPath,
      concurrency: config.browserConcurrency,
      artifactLimitBytes: artifacts.limitBytes,
      sandbox: config.scriptSandbox,
      hiddenPaths: config.scriptHiddenPaths,
      onWarning: warn,
    }),
    artifacts,
  }
}

/**
 * The configured bucket (checked reachable now, so a bad setting fails at startup), else the data
 * directory's `artifacts`.
 */
export async function artifactStoreOf(
  config: Pick<Config, 'dataDir' | 'artifactsS3'>,
): Promise<ArtifactStore> {
  if (!config.artifactsS3) return new LocalArtifactStore(join(config.dataDir, 'artifacts'))
  // Loaded only here: a server without a bucket never loads the S3 client.
  const { createS3ArtifactStore } = await import('../features/artifacts/s3-artifact-store.ts')
  const bucket = await createS3ArtifactStore(config.artifactsS3)
  await bucket.verify().catch((error: unknown) => {
    throw new ConfigError(`SVC_ARTIFACTS_S3_BUCKET: ${error instanceof Error ? error.message : error}`)
  })
  return bucket
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
      // Runs of one account share a browser; another account's never do.
      accountId: check.row.account_id,
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
