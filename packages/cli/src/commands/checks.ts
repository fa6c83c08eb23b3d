import type { ApiClient } from '../api-client.ts'
import type { Command, CommandContext } from '../command.ts'
import { listValue, stringValue } from '../command.ts'
import { table } from '../output.ts'

interface Check {
  id: string
  name: string
  checkType: string
  activated: boolean
  tags: string[]
  locations: string[]
  groupId: number | null
  frequency: number
}

export const checksList: Command = {
  name: 'checks list',
  summary: 'List the checks of the account (--tag, --type, --search)',
  options: { tag: { type: 'string', multiple: true }, type: { type: 'string' }, search: { type: 'string' } },
  async run(ctx) {
    const checks = await findChecks(ctx.client(), ctx)
    ctx.out.result(checks, () =>
      table(
        ['ID', 'TYPE', 'NAME', 'ACTIVE', 'TAGS'],
        checks.map((check) => [
          check.id,
          check.checkType,
          check.name,
          String(check.activated),
          check.tags.join(','),
        ]),
      ),
    )
    return 0
  },
}

export const checksGet: Command = {
  name: 'checks get',
  summary: 'Show one check',
  usage: 'svc checks get <id>',
  async run(ctx) {
    const [id] = ctx.positionals
    if (!id) {
      ctx.out.error('Usage: svc checks get <id>')
      return 2
    }
    if (!CHECK_ID.test(id)) {
      ctx.out.error(
        `"${id}" is not a check id: check ids are UUIDs, such as 3f2b1c4e-8d9a-4b7c-9e1f-2a3b4c5d6e7f (svc checks list shows them)`,
      )
      return 2
    }
    const check = await ctx.client().get<Record<string, unknown>>(`/v1/checks/${encodeURIComponent(id)}`)
    ctx.out.result(check, () =>
      Object.entries(check)
        .filter(([, value]) => value !== null && typeof value !== 'object')
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join('\n'),
    )
    return 0
  },
}

/** A check's id as the API gives it out (the server answers a 400 naming a format otherwise). */
const CHECK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

async function findChecks(client: ApiClient, ctx: CommandContext): Promise<Check[]> {
  const tags = listValue(ctx.values, 'tag')
  const checks = await client.list<Check>('/v1/checks', {
    checkType: stringValue(ctx.values, 'type'),
    name: stringValue(ctx.values, 'search'),
  })
  return checks.filter((check) => tags.every((tag) => check.tags.includes(tag)))
}
