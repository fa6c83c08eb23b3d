#!/usr/bin/env node
// In the repository the CLI runs from its TypeScript sources; an installed package runs its built JavaScript,
// as Node strips types only outside node_modules.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const source = join(import.meta.dirname, '../src/main.ts')
const fromSource = existsSync(source) && !import.meta.dirname.split(/[\\/]/).includes('node_modules')
const entry = fromSource ? source : join(import.meta.dirname, '../dist/cli/src/main.js')
const { main } = await import(pathToFileURL(entry).href)
process.exitCode = await main(process.argv.slice(2))
