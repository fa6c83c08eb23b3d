// Builds the JavaScript that the packed package runs (Node strips types only outside node_modules):
// the CLI and the @svc/core modules it uses, compiled by tsc into dist/, with imports of @svc/core made
// relative, as @svc/core is not published.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const PACKAGE = resolve(import.meta.dirname, '..')
const DIST = join(PACKAGE, 'dist')
const CORE_INDEX = join(DIST, 'core/src/index.js')
const TSC = join(PACKAGE, '../../node_modules/typescript/bin/tsc')

rmSync(DIST, { recursive: true, force: true })
execFileSync(process.execPath, [TSC, '-p', join(PACKAGE, 'tsconfig.build.json')], { stdio: 'inherit' })

for (const file of filesUnder(join(DIST, 'cli'))) {
  if (!file.endsWith('.js') && !file.endsWith('.d.ts')) continue
  let target = relative(dirname(file), CORE_INDEX)
  if (!target.startsWith('.')) target = `./${target}`
  const text = readFileSync(file, 'utf8')
  const rewritten = text.replaceAll(/(from\s+|import\()'@svc\/core'/g, `$1'${target}'`)
  if (rewritten !== text) writeFileSync(file, rewritten)
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}
