import { createInterface } from 'node:readline/promises'
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util'
import { ApiClient, ApiError } from './api-client.ts'
import type { Command, CommandContext } from './command.ts'
import { stringValue } from './command.ts'
import { COMMANDS } from './commands/index.ts'
import { Output } from './output.ts'
import { ProjectError } from './project/load-project.ts'
import { resolveSelfImports } from './self-import.ts'
import { resolveCredentials } from './settings.ts'

const GLOBAL_OPTIONS: ParseArgsOptionsConfig = {
  output: { type: 'string', short: 'o' },
  'api-url': { type: 'string' },
  'api-key': { type: 'string' },
  'account-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
}

export interface MainOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  stdout?: (text: string) => void
  stderr?: (text: string) => void
  tty?: boolean
}

/** Runs one command line and resolves with its exit code. */
export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  resolveSelfImports()
  const env = options.env ?? process.env
  const tty = options.tty ?? (process.stdout.isTTY === true && !env.NO_COLOR)
  const errorOut = new Output({ json: false, tty, write: options.stdout, writeError: options.stderr })
  const command = findCommand(argv)
  if (!command) {
    const unknown = argv.find((arg) => !arg.startsWith('-'))
    if (unknown) errorOut.error(`Unknown command: ${unknown}`)
    errorOut.result(null, help)
    return unknown ? 2 : 0
  }
  const rest = argv.slice(command.name.split(' ').length)
  let values: CommandContext['values']
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      allowNegative: true,
      strict: true,
    }))
  } catch (error) {
    errorOut.error(`${(error as Error).message}\nUsage: ${command.usage ?? `svc ${command.name}`}`)
    return 2
  }
  const output = stringValue(values, 'output') ?? 'text'
  if (output !== 'text' && output !== 'json') {
    errorOut.error('--output must be text or json')
    return 2
  }
  const out = new Output({ json: output === 'json', tty, write: options.stdout, writeError: options.stderr })
  if (values.help) {
    out.result(null, () => commandHelp(command))
    return 0
  }
  const ctx: CommandContext = {
    out,
    values,
    positionals,
    cwd: options.cwd ?? process.cwd(),
    env,
    client: () => new ApiClient(resolveCredentials(values as Record<string, string>, env)),
    confirm: (question) => confirm(question, options.tty ?? process.stdin.isTTY === true),
  }
  try {
    return await command.run(ctx)
  } catch (error) {
    if (error instanceof ApiError || error instanceof ProjectError || error instanceof Error) {
      out.error(error.message)
      if (!(error instanceof ApiError || error instanceof ProjectError) && env.SVC_DEBUG)
        out.error(String(error.stack))
      return 1
    }
    throw error
  }
}

function findCommand(argv: string[]): Command | undefined {
  const words = argv.slice(0, 2).join(' ')
  return (
    COMMANDS.find((command) => command.name.includes(' ') && words === command.name) ??
    COMMANDS.find((command) => command.name === argv[0])
  )
}

function help(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length))
  return [
    'svc: monitoring as code for svc',
    '',
    'Usage: svc <command> [options]',
    '',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Every command takes --output json|text, --api-url, --api-key and --account-id',
    '(else SVC_API_URL, SVC_API_KEY, SVC_ACCOUNT_ID, else the login saved by `svc login`).',
  ].join('\n')
}

function commandHelp(command: Command): string {
  const options = Object.entries(command.options ?? {}).map(([name, option]) => {
    return `  --${name}${option.type === 'string' ? ' VALUE' : ''}${option.multiple ? ' (repeatable)' : ''}`
  })
  return [
    command.summary,
    '',
    `Usage: ${command.usage ?? `svc ${command.name}`}`,
    ...(options.length ? ['', ...options] : []),
  ].join('\n')
}

async function confirm(question: string, interactive: boolean): Promise<boolean> {
  if (!interactive) return false
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim())
  } finally {
    rl.close()
  }
}
