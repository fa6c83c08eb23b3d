import { isBuiltin } from 'node:module'
import { packageNameOf, RUNTIME_DEPENDENCIES, type RuntimeId } from '@svc/core'

const CODE_FILE = /\.(m|c)?(j|t)sx?$/
const SPECIFIERS = [
  /\bimport\s+(?:[\w*\s{},$]+?\s+from\s+)?['"]([^'"\n]+)['"]/g,
  /\bexport\s+[\w*\s{},$]+?\s+from\s+['"]([^'"\n]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
  /\brequire\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
]

export function isCodeFile(path: string): boolean {
  return CODE_FILE.test(path)
}

/**
 * The string specifiers a source file imports or requires (dynamic, computed ones are caught at run time).
 * Exported for tests: the scrub tests read specifiers of sources.
 */
export function importSpecifiers(source: string): string[] {
  const found = new Set<string>()
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
  for (const pattern of SPECIFIERS) for (const match of code.matchAll(pattern)) found.add(match[1] as string)
  return [...found]
}

export function isBareSpecifier(specifier: string): boolean {
  return !/^(\.|\/|file:|data:|node:)/.test(specifier) && !isBuiltin(specifier)
}

export const ALLOWED_PACKAGES: readonly string[] = Object.keys(RUNTIME_DEPENDENCIES)

/** Why `files` can't run in `runtimeId`, or null when every package they import is provided. */
export function forbiddenImport(
  files: { path: string; content: string }[],
  runtimeId: RuntimeId,
): string | null {
  for (const file of files) {
    if (!isCodeFile(file.path)) continue
    for (const specifier of importSpecifiers(file.content)) {
      if (!isBareSpecifier(specifier) || ALLOWED_PACKAGES.includes(packageNameOf(specifier))) continue
      return (
        `Cannot import '${specifier}' in ${file.path}: runtime ${runtimeId} does not provide ` +
        `'${packageNameOf(specifier)}'. Available: Node.js built-ins (node:*), ${[...ALLOWED_PACKAGES].sort().join(', ')}.`
      )
    }
  }
  return null
}
