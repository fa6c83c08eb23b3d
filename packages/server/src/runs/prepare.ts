import { applyApiCheckDefaults, type CheckType, GROUP_BASE_URL, substituteVariables } from '@svc/core'
import { cancelledOutcome, type RunnerJob, type RunOutcome, type UPTIME_CHECK_TYPES } from '@svc/runner'
import type { ServiceContext } from '../context.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { certificateForHost } from '../features/client-certificates/client-certificates.service.ts'
import { apiScriptsOf } from './api-scripts.ts'
import { type AccountVariables, runVariables } from './run-variables.ts'
import { isScriptCheckType, scriptJobOf } from './script-checks.ts'

/**
 * What one attempt of `check` in `location` runs, for the result `resultId`: an uptime check's
 * definition with the variables substituted into its request, or a script check's job (variables as
 * `process.env`); plus the values to scrub from what it reports. Built here whether the attempt then
 * runs in this process or on an agent. `accounts`: the account variables its claim loaded.
 */
export async function prepareJob(
  ctx: ServiceContext,
  check: ResolvedCheck,
  run: { location: string },
  accounts?: AccountVariables,
): Promise<{ job: RunnerJob; hidden: string[] }> {
  const variables = await runVariables(ctx, check, accounts)
  const checkType = check.row.check_type as CheckType
  if (isScriptCheckType(checkType)) {
    return { job: await scriptJobOf(ctx, check, variables, run.location), hidden: variables.hidden }
  }
  const request = substituteVariables(requestOf(check), withGroupBaseUrl(check, variables.values))
  const clientCertificate = checkType === 'API' ? await clientCertificateFor(ctx, check, request) : null
  const scripts = checkType === 'API' ? await apiScriptsOf(ctx, check, variables) : null
  const definition = {
    ...withoutScriptSources(check.definition),
    request,
    ...(clientCertificate ? { clientCertificate } : {}),
    ...(scripts ? { scripts } : {}),
  }
  return {
    job: { checkType: checkType as (typeof UPTIME_CHECK_TYPES)[number], definition },
    hidden: variables.hidden,
  }
}

/**
 * The definition without its setup and teardown sources: `scripts` carries them, prepared, so a job
 * (up to 2 MB at the maximum script sizes) doesn't carry each script twice to an agent.
 */
function withoutScriptSources(definition: ResolvedCheck['definition']) {
  const { localSetupScript, localTearDownScript, setupSnippetId, tearDownSnippetId, ...rest } =
    definition as Record<string, unknown>
  return rest
}

/** The account's client certificate for an API check's https:// host (mTLS), or null. */
async function clientCertificateFor(ctx: ServiceContext, check: ResolvedCheck, request: unknown) {
  const url = URL.parse(String((request as { url?: unknown } | undefined)?.url ?? ''))
  if (url?.protocol !== 'https:') return null
  return certificateForHost(ctx, check.row.account_id, url.hostname)
}

/** The check's request, with its group's API check defaults in it when it is an API check. */
function requestOf(check: ResolvedCheck): unknown {
  const request = check.definition.request as Parameters<typeof applyApiCheckDefaults>[0]
  if (check.row.check_type !== 'API') return request
  return applyApiCheckDefaults(request, check.effective.apiCheckDefaults)
}

/** The variables, plus the group's base URL (its own variables filled in) where the group sets one. */
function withGroupBaseUrl(check: ResolvedCheck, values: Map<string, string>): Map<string, string> {
  const baseUrl = check.effective.apiCheckDefaults?.url
  if (check.row.check_type !== 'API' || !baseUrl) return values
  return new Map([...values, [GROUP_BASE_URL, substituteVariables(baseUrl, values)]])
}

/** The outcome of a run of the suite `check` cancelled before it started anywhere: no test ran. */
export async function cancelledBeforeStart(
  ctx: ServiceContext,
  check: ResolvedCheck,
  location: string,
): Promise<RunOutcome> {
  const { job } = await prepareJob(ctx, check, { location })
  if (!('script' in job)) throw new Error(`${job.checkType} runs are never cancelled`)
  return cancelledOutcome(job, { now: () => ctx.clock.now() })
}
