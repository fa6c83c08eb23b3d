import type { Construct } from './construct.ts'

/**
 * The constructs made while a project's files load. Kept on globalThis so that a user's file importing
 * the package by another path (a second copy of the module) still registers into the loading project.
 */
interface Session {
  constructs: Construct[]
  currentFile: string | undefined
}

const KEY = Symbol.for('svc.cli.session')

export function session(): Session {
  const holder = globalThis as { [KEY]?: Session }
  holder[KEY] ??= { constructs: [], currentFile: undefined }
  return holder[KEY]
}

/** Starts an empty session: loading a project twice in one process must not see the first load's constructs. */
export function resetSession(): Session {
  const fresh = session()
  fresh.constructs = []
  fresh.currentFile = undefined
  return fresh
}
