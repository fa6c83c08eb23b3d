import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import type { Command, CommandContext } from '../command.ts'
import { stringValue } from '../command.ts'
import {
  importCode,
  type ServerChannel,
  type ServerCheck,
  type ServerDashboard,
  type ServerGroup,
  type ServerLocation,
  type ServerMaintenanceWindow,
  type ServerResources,
  type ServerService,
  type ServerStatusPage,
  type ServerVariable,
} from '../project/import-code.ts'

export const importCommand: Command = {
  name: 'import',
  summary:
    "Write construct code for the account's checks, groups, alert channels, private locations, status pages, dashboards, variables and maintenance windows (to move them into git)",
  usage: 'svc import [--file checks/imported.check.ts] [--force]',
  options: { file: { type: 'string' }, force: { type: 'boolean', short: 'f' } },
  async run(ctx) {
    const file = resolve(ctx.cwd, stringValue(ctx.values, 'file') ?? 'checks/imported.check.ts')
    if (existsSync(file) && ctx.values.force !== true) {
      ctx.out.error(`${file} exists already: pass --force to overwrite it`)
      return 1
    }
    const server = await serverResources(ctx.client())
    const { code, files, skipped } = importCode(server)
    const paths = files.map((suiteFile) => resolve(dirname(file), suiteFile.path))
    const existing = paths.find((path) => existsSync(path))
    if (existing && ctx.values.force !== true) {
      ctx.out.error(`${existing} exists already: pass --force to overwrite it`)
      return 1
    }
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, code)
    files.forEach((suiteFile, index) => {
      const path = paths[index] as string
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, suiteFile.content)
    })
    for (const reason of skipped) ctx.out.error(`Skipped ${reason}`)
    const counts = countsOf(server, skipped.length)
    const { locations, pages, dashboards, variables } = server
    const fromEnv = variables.filter((v) => v.locked || v.secret).map((v) => v.key)
    const suiteFiles = paths.map((path) => relative(ctx.cwd, path))
    ctx.out.result({ file, ...counts, skipped, suiteFiles }, () =>
      [
        `Wrote ${counts.checks} checks, ${counts.groups} groups, ${counts.alertChannels} alert channels, ${counts.privateLocations} private locations, ${counts.statusPageServices} status page services, ${counts.statusPages} status pages, ${counts.dashboards} dashboards, ${counts.variables} variables and ${counts.maintenanceWindows} maintenance windows to ${relative(ctx.cwd, file)}`,
        ...(suiteFiles.length > 0 ? [`Wrote the Playwright suites' files: ${suiteFiles.join(', ')}`] : []),
        'The next deploy makes them anew under the project; delete the originals once it succeeded.',
        ...(fromEnv.length > 0
          ? [
              `Locked and secret values can't be read back: the code reads them from the environment at deploy (${fromEnv.join(', ')}).`,
            ]
          : []),
        ...(locations.length + pages.length + dashboards.length + variables.length > 0
          ? [
              "A private location's slugName, a status page's url, a dashboard's customUrl and a variable's key are unique: change them in the file, or delete the originals first.",
            ]
          : []),
      ].join('\n'),
    )
    return 0
  },
}

/** How many of each kind the file holds (checks it skipped left out). */
function countsOf(server: ServerResources, skippedChecks: number) {
  return {
    checks: server.checks.length - skippedChecks,
    groups: server.groups.length,
    alertChannels: server.channels.length,
    privateLocations: server.locations.length,
    statusPageServices: server.services.length,
    statusPages: server.pages.length,
    dashboards: server.dashboards.length,
    variables: server.variables.length,
    maintenanceWindows: server.maintenanceWindows.length,
  }
}

/** Everything `svc import` writes code for, read from the server at once. */
async function serverResources(client: ReturnType<CommandContext['client']>): Promise<ServerResources> {
  const [checks, groups, channels, locations, services, pages, dashboards, variables, maintenanceWindows] =
    await Promise.all([
      client.list<ServerCheck>('/v1/checks'),
      client.list<ServerGroup>('/v1/check-groups'),
      client.list<ServerChannel>('/v1/alert-channels'),
      client.list<ServerLocation>('/v1/private-locations'),
      client
        .get<{ entries: ServerService[] }>('/v1/status-pages/services', { paginated: false })
        .then((answer) => answer.entries),
      client.list<ServerStatusPage>('/v3/status-pages'),
      client.list<ServerDashboard>('/v1/dashboards'),
      client.list<ServerVariable>('/v1/variables'),
      client.list<ServerMaintenanceWindow>('/v1/maintenance-windows'),
    ])
  return { checks, groups, channels, locations, services, pages, dashboards, variables, maintenanceWindows }
}
