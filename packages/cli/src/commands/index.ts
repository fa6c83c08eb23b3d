import type { Command } from '../command.ts'
import { login, whoami } from './account.ts'
import { checksGet, checksList } from './checks.ts'
import { envAdd, envList, envPull, envRemove } from './env.ts'
import { importCommand } from './import.ts'
import { init } from './init.ts'
import { deploy, destroy, synth, validate } from './project.ts'
import { test } from './test.ts'
import { trigger } from './trigger.ts'

export const COMMANDS: Command[] = [
  init,
  login,
  whoami,
  validate,
  synth,
  deploy,
  test,
  destroy,
  checksList,
  checksGet,
  trigger,
  envList,
  envAdd,
  envRemove,
  envPull,
  importCommand,
]
