import { randomUUID } from 'node:crypto'

/** `{{KEY}}` (optionally `{{ KEY }}`) where KEY is a variable key or a `$` built-in. */
const PLACEHOLDER = /\{\{\s*(\$?[A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g

const BUILT_INS: Record<string, () => string> = {
  $UUID: () => randomUUID(),
  $RANDOM_NUMBER: () => String(Math.floor(Math.random() * 1001)),
  $TIMESTAMP: () => String(Date.now()),
}

/**
 * Replaces `{{KEY}}` in every string inside `value` (objects and arrays are walked, other values kept)
 * with the variable's value, or a built-in (`{{$UUID}}`, `{{$RANDOM_NUMBER}}`, `{{$TIMESTAMP}}`).
 * Unknown keys stay as written, so a typo shows up in the request instead of vanishing.
 */
export function substituteVariables<T>(value: T, variables: ReadonlyMap<string, string>): T {
  return walkStrings(value, (text) =>
    text.replace(PLACEHOLDER, (whole, key: string) => variables.get(key) ?? BUILT_INS[key]?.() ?? whole),
  )
}

/** Keys of variables `value` refers to: `{{KEY}}` anywhere, and `process.env.KEY` in scripts. */
export function referencedVariableKeys(value: unknown): string[] {
  const keys = new Set<string>()
  walkStrings(value, (text) => {
    for (const match of text.matchAll(PLACEHOLDER)) {
      if (!match[1]?.startsWith('$')) keys.add(match[1] as string)
    }
    for (const match of text.matchAll(
      /process\.env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*\])/g,
    )) {
      keys.add((match[1] ?? match[2]) as string)
    }
    return text
  })
  return [...keys].sort()
}

function walkStrings<T>(value: T, map: (text: string) => string): T {
  if (typeof value === 'string') return map(value) as T
  if (Array.isArray(value)) return value.map((item) => walkStrings(item, map)) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walkStrings(item, map)])) as T
  }
  return value
}
