import { isAbsolute, normalize, sep } from 'node:path'
import type { ScriptCheckType } from '../check-types/index.ts'

/**
 * The files a script check (BROWSER, MULTI_STEP, AUTOMATION) runs as one project, and the rule for a
 * project that can run at all. The runner builds its run from this; the API refuses at save time what
 * it would refuse at every run, so the two can't disagree.
 */
export type ScriptProjectCheckType = ScriptCheckType

export const DEFAULT_SCRIPT_ENTRIES: Record<ScriptProjectCheckType, string> = {
  BROWSER: 'browser-check.spec.js',
  MULTI_STEP: 'multi-step.spec.js',
  AUTOMATION: 'automation.spec.js',
}
export const DEFAULT_PLAYWRIGHT_CONFIG_PATH = 'playwright.config.ts'

export interface ScriptProjectSource {
  script?: string | null
  scriptPath?: string | null
  dependencies?: readonly { path: string; content: string }[] | null
  playwrightConfigPath?: string | null
  /** AUTOMATION: the tests to run, as Playwright's `--grep` reads it. */
  grep?: string | null
}

export interface ScriptProject {
  files: { path: string; content: string }[]
  /** The script's file, null for a suite made only of `dependencies`. */
  entry: string | null
  /** AUTOMATION: the Playwright config among `files`. */
  configPath: string | null
}

/** Why a project can't run: `field` is the definition's field at fault (`dependencies.1.path`). */
export class ScriptProjectError extends Error {
  readonly field: string
  /** Says what is wrong with `field`, to follow its name (`body.script must not be blank`). */
  readonly reason: string
  constructor(field: string, reason: string, message: string) {
    super(message)
    this.field = field
    this.reason = reason
  }
}

/** The project a script check runs; throws ScriptProjectError when it could never run. */
export function scriptProjectOf(
  checkType: ScriptProjectCheckType,
  source: ScriptProjectSource,
): ScriptProject {
  const files = new Map<string, string>()
  ;(source.dependencies ?? []).forEach((dependency, index) => {
    files.set(projectPath(dependency.path, `dependencies.${index}.path`), dependency.content)
  })
  let entry: string | null = null
  if (source.script && source.script.trim() !== '') {
    entry = projectPath(source.scriptPath || DEFAULT_SCRIPT_ENTRIES[checkType], 'scriptPath')
    files.set(entry, source.script)
  } else if (checkType !== 'AUTOMATION') {
    throw new ScriptProjectError('script', 'must not be blank', 'The check has no script')
  }
  let configPath: string | null = null
  if (checkType === 'AUTOMATION') {
    configPath = projectPath(
      source.playwrightConfigPath || DEFAULT_PLAYWRIGHT_CONFIG_PATH,
      'playwrightConfigPath',
    )
    if (files.size === 0) {
      const reason = `must hold the suite's files, ${configPath} among them (or send a script)`
      throw new ScriptProjectError('dependencies', reason, `The suite has no files: it needs ${configPath}`)
    }
    if (!files.has(configPath)) {
      const message = `${configPath} is not among the project's files`
      throw new ScriptProjectError(
        'playwrightConfigPath',
        `must name one of the project's files (dependencies, script); ${configPath} is not among them`,
        message,
      )
    }
  }
  if (checkType === 'AUTOMATION' && source.grep) grepRegExp(source.grep)
  return { files: [...files].map(([path, content]) => ({ path, content })), entry, configPath }
}

/** `grep` as Playwright's `--grep` reads it (`/source/flags`, else case-insensitive source). */
function grepRegExp(grep: string): RegExp {
  const literal = grep.match(/^\/(.*)\/([gi]*)$/)
  try {
    return literal ? new RegExp(literal[1] as string, literal[2]) : new RegExp(grep, 'gi')
  } catch (error) {
    const reason = `must be a regular expression: ${(error as Error).message}`
    throw new ScriptProjectError('grep', reason, `The grep ${reason}`)
  }
}

/** A path relative to the project that stays inside it, normalized; `.svc` is the runner's own. */
function projectPath(path: string, field: string): string {
  const normalized = normalize(path).replace(/^(\.\/)+/, '')
  if (
    !normalized ||
    normalized === '.' ||
    isAbsolute(normalized) ||
    normalized.split(sep).includes('..') ||
    normalized.startsWith('.svc')
  ) {
    throw new ScriptProjectError(
      field,
      'must be a path relative to the project that stays inside it',
      `Invalid file path '${path}': paths are relative to the project and stay inside it`,
    )
  }
  return normalized
}
