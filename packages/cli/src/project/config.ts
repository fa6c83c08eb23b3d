import type { AlertChannel } from '../constructs/alert-channels.ts'

/** `svc.config.ts`: the project, where its check files are, and defaults its checks share. */
export interface SvcConfig {
  /** Shown in deploy output. */
  projectName: string
  /** Names the project on the server: deploying again under it updates the same resources. */
  logicalId: string
  repoUrl?: string
  checks?: {
    /** Globs of check files, relative to the config file. @defaultValue `'**\/*.check.ts'` */
    checkMatch?: string | string[]
    /** Locations of checks and groups that set none. */
    locations?: string[]
    /** Minutes between runs of checks and groups that set none. */
    frequency?: number
    /** Tags of checks that set none. */
    tags?: string[]
    /** Channels that alert for checks outside a group that name none. */
    alertChannels?: AlertChannel[]
  }
}

/** Types `svc.config.ts`'s default export. */
export function defineConfig(config: SvcConfig): SvcConfig {
  return config
}
