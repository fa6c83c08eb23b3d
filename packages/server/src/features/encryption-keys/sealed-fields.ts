/** Sealed values inside a stored JSON document: every string field whose name starts with `sealed`. */

export function sealedFieldsOf(document: string): string[] {
  const found: string[] = []
  visit(JSON.parse(document), (value) => {
    found.push(value)
    return value
  })
  return found
}

/** The document with each sealed field replaced by `change(value)`; the same text when nothing changed. */
export function mapSealedFields(document: string, change: (sealed: string) => string): string {
  let changed = false
  const mapped = visit(JSON.parse(document), (value) => {
    const next = change(value)
    if (next !== value) changed = true
    return next
  })
  return changed ? JSON.stringify(mapped) : document
}

function visit(node: unknown, onSealed: (value: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => visit(item, onSealed))
  if (node === null || typeof node !== 'object') return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key.startsWith('sealed') && typeof value === 'string' && value !== ''
        ? onSealed(value)
        : visit(value, onSealed)
  }
  return out
}
