import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Command } from '../command.ts'
import { table } from '../output.ts'

interface Variable {
  key: string
  value: string
  locked: boolean
  secret: boolean
  description?: string | null
}

const MASKED = '***masked***'

export const envList: Command = {
  name: 'env ls',
  summary: "List the account's environment variables (locked and secret values masked)",
  async run(ctx) {
    const variables = await ctx.client().list<Variable>('/v1/variables')
    ctx.out.result(variables, () =>
      table(
        ['KEY', 'VALUE', 'LOCKED', 'SECRET'],
        variables.map((v) => [v.key, v.value, String(v.locked), String(v.secret)]),
      ),
    )
    return 0
  },
}

export const envAdd: Command = {
  name: 'env add',
  summary: 'Add an environment variable (--locked masks its value, --secret makes it never readable)',
  usage: 'svc env add <KEY> <VALUE> [--locked] [--secret] [--description TEXT]',
  options: { locked: { type: 'boolean' }, secret: { type: 'boolean' }, description: { type: 'string' } },
  async run(ctx) {
    const [key, value] = ctx.positionals
    if (!key || value === undefined) {
      ctx.out.error(`Usage: ${envAdd.usage}`)
      return 2
    }
    const { data } = await ctx.client().request<Variable>('POST', '/v1/variables', {
      body: {
        key,
        value,
        locked: ctx.values.locked === true,
        secret: ctx.values.secret === true,
        ...(typeof ctx.values.description === 'string' ? { description: ctx.values.description } : {}),
      },
    })
    ctx.out.result(data, () => `Added ${key}`)
    return 0
  },
}

export const envRemove: Command = {
  name: 'env rm',
  summary: 'Remove an environment variable',
  usage: 'svc env rm <KEY>',
  async run(ctx) {
    const [key] = ctx.positionals
    if (!key) {
      ctx.out.error(`Usage: ${envRemove.usage}`)
      return 2
    }
    await ctx.client().request('DELETE', `/v1/variables/${encodeURIComponent(key)}`)
    ctx.out.result({ removed: key }, () => `Removed ${key}`)
    return 0
  },
}

export const envPull: Command = {
  name: 'env pull',
  summary: 'Write the variables to a .env file (masked values are left out, as comments)',
  usage: 'svc env pull [FILE] (default .env)',
  async run(ctx) {
    const file = resolve(ctx.cwd, ctx.positionals[0] ?? '.env')
    const variables = await ctx.client().list<Variable>('/v1/variables')
    const lines = variables.map((v) =>
      v.value === MASKED || v.secret
        ? `# ${v.key}: ${v.secret ? 'secret' : 'locked'}, not readable`
        : `${v.key}=${quote(v.value)}`,
    )
    writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 })
    ctx.out.result(
      { file, variables: variables.length },
      () => `Wrote ${variables.length} variables to ${file}`,
    )
    return 0
  },
}

/** A dotenv value: quoted when it holds anything but plain characters. */
function quote(value: string): string {
  return /^[\w@%+=:,./-]*$/.test(value) ? value : JSON.stringify(value)
}
