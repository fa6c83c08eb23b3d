import type { Command } from '../command.ts'
import { login, whoami } from './account.ts'
import { deploy, destroy, synth, validate } from './project.ts'

export const COMMANDS: Command[] = [login, whoami, validate, synth, deploy, destroy]
