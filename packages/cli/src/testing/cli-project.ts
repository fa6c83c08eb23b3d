import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

const CLI_PACKAGE = resolve(import.meta.dirname, '../..')
const BIN = join(CLI_PACKAGE, 'bin/svc.js')

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** A monitoring project in a temporary directory whose `@svc/cli` is this package, as an install has it. */
export class CliProject {
  readonly dir: string

  constructor(files: Record<string, string> = {}) {
    this.dir = mkdtempSync(join(tmpdir(), 'svc-cli-project-'))
    mkdirSync(join(this.dir, 'node_modules/@svc'), { recursive: true })
    symlinkSync(CLI_PACKAGE, join(this.dir, 'node_modules/@svc/cli'))
    writeFileSync(
      join(this.dir, 'package.json'),
      JSON.stringify({ name: 'checks', private: true, type: 'module' }),
    )
    this.write(files)
  }

  write(files: Record<string, string>): void {
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(dirname(join(this.dir, name)), { recursive: true })
      writeFileSync(join(this.dir, name), content)
    }
  }

  /**
   * Runs the `svc` bin in the project as a user would, with only `env` (and PATH) set. The suite's compile
   * cache is passed on: it halves the CPU each run spends loading the CLI's TypeScript.
   */
  run(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
    return new Promise((resolveRun) => {
      execFile(
        process.execPath,
        ['--disable-warning=ExperimentalWarning', BIN, ...args],
        {
          cwd: this.dir,
          env: {
            PATH: process.env.PATH,
            HOME: this.dir,
            XDG_CONFIG_HOME: join(this.dir, '.config'),
            ...compileCacheEnv(),
            ...env,
          },
          timeout: 120_000,
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
          resolveRun({ code, stdout, stderr })
        },
      )
    })
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

function compileCacheEnv(): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE
  return cache ? { NODE_COMPILE_CACHE: cache } : {}
}

/** A config file with the given defaults. */
export function configFile(logicalId: string, extra = ''): string {
  return `import { defineConfig } from '@svc/cli'
${extra}
export default defineConfig({
  projectName: 'Test project',
  logicalId: ${JSON.stringify(logicalId)},
  checks: { locations: ['local'], frequency: 10, tags: ['cli'] },
})
`
}
