import { readFileSync } from 'node:fs'

/** svc's version, as its server package states it. */
export const SVC_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version
