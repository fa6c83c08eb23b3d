// Lists the functions of the packages' shipped code that are over 60 lines, and fails on one that the
// baseline (.function-length-baseline.json) doesn't know or that grew past its known length. A function
// whose comment says why it is longer ("over 60 lines") is not counted. `--baseline` writes the baseline
// from the code as it is: run it after splitting functions, never to let a new long one in.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { parseSync } from '@swc/core'

const MAX_LINES = 60
const BASELINE = '.function-length-baseline.json'
const SAYS_WHY = /over 60 lines/i

// Tests and their helpers are left out, as by the layers check; migrations too: each is a dated step of
// the schema that never changes once released.
const LEFT_OUT = /\.test\.tsx?$|\/testing\/|\/testing\.ts$|\/e2e\/|\/db\/src\/migrations\//

function shippedFiles() {
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', 'packages/*/src/*.ts', 'packages/*/src/*.tsx'],
    {
      encoding: 'utf8',
    },
  )
  return listed.split('\n').filter((file) => file && !file.endsWith('.d.ts') && !LEFT_OUT.test(file))
}

/** Every function of `file` over MAX_LINES lines, named by its declaration, variable or property. */
function longFunctionsOf(file) {
  // A leading `;` starts the module's span at offset 0 of the file, whatever comments come first.
  const source = readFileSync(file, 'utf8').replace(/^#!/, '//')
  const module = parseSync(`;${source}`, { syntax: 'typescript', tsx: file.endsWith('.tsx') })
  const base = module.span.start + 1
  const bytes = Buffer.from(source)
  const lineStarts = [0]
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) lineStarts.push(i + 1)
  const lineOf = (span) => {
    const offset = span - base
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (lineStarts[middle] <= offset) low = middle
      else high = middle - 1
    }
    return low + 1
  }
  const saysWhy = (line) => {
    // The comment block ending on the line above the function (or above its `export`).
    const lines = source.split('\n')
    let at = line - 2
    const comment = []
    while (at >= 0 && /^\s*(\/\/|\/\*\*|\*|\*\/)/.test(lines[at])) comment.push(lines[at--])
    return SAYS_WHY.test(comment.join('\n'))
  }
  const found = []
  const walk = (node, name, declaredAt) => {
    if (!node || typeof node !== 'object') return
    if (Array.isArray(node)) {
      for (const child of node) walk(child, name, declaredAt)
      return
    }
    let named = name
    let at = declaredAt
    if (node.type === 'VariableDeclaration' || node.type === 'ExportDeclaration') at = lineOf(node.span.start)
    if (node.type === 'VariableDeclarator' && node.id?.value) named = node.id.value
    if (['KeyValueProperty', 'MethodProperty', 'ClassMethod'].includes(node.type) && node.key?.value) {
      named = node.key.value
    }
    const isFunction = [
      'FunctionDeclaration',
      'FunctionExpression',
      'ArrowFunctionExpression',
      'ClassMethod',
      'MethodProperty',
    ].includes(node.type)
    if (isFunction) {
      const start = lineOf(node.span.start)
      const lines = lineOf(node.span.end) - start + 1
      const functionName = node.identifier?.value ?? named ?? '(anonymous)'
      if (lines > MAX_LINES && !saysWhy(Math.min(start, at ?? start))) {
        found.push({ file, function: functionName, lines, line: start })
      }
      for (const [key, child] of Object.entries(node)) if (key !== 'span') walk(child, undefined, undefined)
      return
    }
    for (const [key, child] of Object.entries(node)) if (key !== 'span') walk(child, named, at)
  }
  walk(module.body, undefined, undefined)
  return found
}

const keyOf = (entry) => `${entry.file} ${entry.function}`
const found = shippedFiles().flatMap(longFunctionsOf)

if (process.argv.includes('--baseline')) {
  const entries = found.map(({ file, function: name, lines }) => ({ file, function: name, lines }))
  entries.sort((a, b) => keyOf(a).localeCompare(keyOf(b)))
  writeFileSync(BASELINE, `${JSON.stringify(entries, null, 2)}\n`)
  console.log(`${entries.length} functions over ${MAX_LINES} lines written to ${BASELINE}`)
  process.exit(0)
}

const known = new Map()
for (const entry of JSON.parse(readFileSync(BASELINE, 'utf8'))) known.set(keyOf(entry), entry.lines)
const failures = found.filter((entry) => !(known.get(keyOf(entry)) >= entry.lines))
const foundKeys = new Set(found.map(keyOf))
const stale = [...known.keys()].filter((key) => !foundKeys.has(key))
for (const entry of failures) {
  const was = known.get(keyOf(entry))
  console.error(
    `${entry.file}:${entry.line} ${entry.function} is ${entry.lines} lines` +
      (was === undefined ? '' : ` (known at ${was})`) +
      `: split it by reason to change (at most ${MAX_LINES} lines), or say in its comment why it is over 60 lines`,
  )
}
console.log(
  `${found.length - failures.length} known functions over ${MAX_LINES} lines` +
    (stale.length > 0
      ? `; ${stale.length} gone or shorter since the baseline: run npm run check:functions:baseline`
      : ''),
)
process.exit(failures.length > 0 ? 1 : 0)
