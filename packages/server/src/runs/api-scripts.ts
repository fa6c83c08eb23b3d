import type { ApiScript, ApiScripts } from '@svc/core'
import type { ServiceContext } from '../context.ts'
import type { ApiScriptSettings } from '../features/checks/effective-check.ts'
import type { ResolvedCheck } from '../features/checks/resolve-check.ts'
import { snippetScripts } from '../features/snippets/snippets.service.ts'
import type { RunVariables } from './run-variables.ts'

/** Whose scripts, as errors and logs name them. */
interface Level {
  settings: ApiScriptSettings | null
  prefix: string
}

/**
 * The setup and teardown scripts a run of the API check `check` executes, null when it has none (the
 * run then starts no process for them). In the hosted product's order: the group's setup, the check's
 * setup, the request, the check's teardown, the group's teardown. At each level a snippet runs before
 * the level's own script. A deleted snippet runs nothing. The run's variables are `process.env`.
 */
export async function apiScriptsOf(
  ctx: ServiceContext,
  check: ResolvedCheck,
  variables: RunVariables,
): Promise<ApiScripts | null> {
  const group: Level = { settings: check.effective.groupApiScripts, prefix: "the group's " }
  const own: Level = { settings: check.definition as ApiScriptSettings, prefix: '' }
  const snippetIds = [group, own].flatMap(({ settings }) =>
    [settings?.setupSnippetId, settings?.tearDownSnippetId].filter((id): id is number => id != null),
  )
  const hasLocal = [group, own].some(
    ({ settings }) => Boolean(settings?.localSetupScript) || Boolean(settings?.localTearDownScript),
  )
  if (snippetIds.length === 0 && !hasLocal) return null
  const snippets = snippetIds.length ? await snippetScripts(ctx, check.row.account_id, snippetIds) : new Map()
  const setup = (level: Level) =>
    scriptsOf(level, snippets, level.settings?.setupSnippetId, 'localSetupScript', 'setup snippet')
  const tearDown = (level: Level) =>
    scriptsOf(level, snippets, level.settings?.tearDownSnippetId, 'localTearDownScript', 'teardown snippet')
  const scripts = {
    setup: [...setup(group), ...setup(own)],
    tearDown: [...tearDown(own), ...tearDown(group)],
    environment: Object.fromEntries(variables.values),
  }
  return scripts.setup.length || scripts.tearDown.length ? scripts : null
}

function scriptsOf(
  level: Level,
  snippets: Map<number, string>,
  snippetId: number | null | undefined,
  localField: 'localSetupScript' | 'localTearDownScript',
  snippetWord: string,
): ApiScript[] {
  const scripts: ApiScript[] = []
  const snippet = snippetId == null ? undefined : snippets.get(snippetId)
  if (snippet) scripts.push({ name: `${level.prefix}${snippetWord} ${snippetId}`, source: snippet })
  const local = level.settings?.[localField]
  if (local) scripts.push({ name: `${level.prefix}${localField}`, source: local })
  return scripts
}
