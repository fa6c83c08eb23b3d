import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import type { Command } from '../command.ts'
import { stringValue } from '../command.ts'
import { importCode, type ServerChannel, type ServerCheck, type ServerGroup } from '../project/import-code.ts'

export const importCommand: Command = {
  name: 'import',
  summary: "Write construct code for the account's checks, groups and alert channels (to move them into git)",
  usage: 'svc import [--file checks/imported.check.ts] [--force]',
  options: { file: { type: 'string' }, force: { type: 'boolean', short: 'f' } },
  async run(ctx) {
    const file = resolve(ctx.cwd, stringValue(ctx.values, 'file') ?? 'checks/imported.check.ts')
    if (existsSync(file) && ctx.values.force !== true) {
      ctx.out.error(`${file} exists already: pass --force to overwrite it`)
      return 1
    }
    const client = ctx.client()
    const [checks, groups, channels] = await Promise.all([
      client.list<ServerCheck>('/v1/checks'),
      client.list<ServerGroup>('/v1/check-groups'),
      client.list<ServerChannel>('/v1/alert-channels'),
    ])
    const { code, skipped } = importCode(checks, groups, channels)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, code)
    for (const reason of skipped) ctx.out.error(`Skipped ${reason}`)
    const counts = {
      checks: checks.length - skipped.length,
      groups: groups.length,
      alertChannels: channels.length,
    }
    ctx.out.result({ file, ...counts, skipped }, () =>
      [
        `Wrote ${counts.checks} checks, ${counts.groups} groups and ${counts.alertChannels} alert channels to ${relative(ctx.cwd, file)}`,
        'The next deploy makes them anew under the project; delete the originals once it succeeded.',
      ].join('\n'),
    )
    return 0
  },
}
