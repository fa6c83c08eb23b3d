import { existsSync, globSync, readFileSync } from 'node:fs'
import { dirname, relative, resolve, sep } from 'node:path'
import { type CheckBody, ScriptProjectError, scriptProjectOf } from '@svc/core'
import { Check, type CheckProps } from './checks.ts'
import type { CheckDefaults, Issue } from './construct.ts'

type Generated = 'script' | 'scriptPath' | 'dependencies' | 'playwrightConfigPath'

export type AutomationCheckProps = Omit<CheckProps<'AUTOMATION'>, Generated> & {
  /** The suite's Playwright config, relative to the check file; its folder is the suite's root. */
  playwrightConfig: string
  /**
   * Globs of the suite's files, relative to its root (node_modules never included).
   * @defaultValue `['**\/*.{ts,js,mjs,cjs,json}']`
   */
  include?: string[]
}

const DEFAULT_INCLUDE = ['**/*.{ts,js,mjs,cjs,json}']

/** A Playwright test suite that runs as one check: its config and files are sent with it. */
export class AutomationCheck extends Check<'AUTOMATION'> {
  readonly suite: { playwrightConfig: string; include: string[] }

  constructor(logicalId: string, props: AutomationCheckProps) {
    const { playwrightConfig, include, ...rest } = props ?? ({} as AutomationCheckProps)
    super('AUTOMATION', logicalId, rest)
    this.suite = { playwrightConfig, include: include ?? DEFAULT_INCLUDE }
  }

  private configFile(): string {
    return resolve(
      this.sourceFile ? dirname(this.sourceFile) : process.cwd(),
      this.suite.playwrightConfig ?? '',
    )
  }

  override body(defaults: CheckDefaults): Record<string, unknown> {
    const config = this.configFile()
    const root = dirname(config)
    const paths = existsSync(config)
      ? globSync(this.suite.include, { cwd: root, exclude: (name) => name === 'node_modules' })
      : []
    const dependencies = [...new Set(paths)].sort().map((path) => ({
      path: path.split(sep).join('/'),
      content: readFileSync(resolve(root, path), 'utf8'),
    }))
    return {
      ...super.body(defaults),
      playwrightConfigPath: relative(root, config).split(sep).join('/'),
      dependencies,
    }
  }

  override validate(defaults: CheckDefaults): Issue[] {
    if (typeof this.suite.playwrightConfig !== 'string')
      return [this.issue('playwrightConfig', 'is required')]
    if (!existsSync(this.configFile())) {
      return [this.issue('playwrightConfig', `names ${this.configFile()}, which doesn't exist`)]
    }
    const issues = super.validate(defaults)
    if (issues.length > 0) return issues
    try {
      scriptProjectOf('AUTOMATION', this.body(defaults) as CheckBody<'AUTOMATION'>)
      return []
    } catch (error) {
      if (!(error instanceof ScriptProjectError)) throw error
      return [this.issue(error.field, error.reason)]
    }
  }
}
