import type { TSchema } from 'typebox'
import type { Draft } from '../ui/form-fields.tsx'

/**
 * What the sections of a check's form past the general fields share (alerting-fields.tsx, retry-fields.tsx,
 * variables-fields.tsx, incident-trigger-fields.tsx). Bounds and defaults are read from core's schemas, the
 * ones the API validates with, so the form can't drift from the API.
 */

export interface Bind {
  draft: Draft
  onChange(draft: Draft): void
  error: unknown
}

type Bounds = { min?: number; max?: number; fallback?: number }

/** Minimum, maximum and default of an integer property of a core schema (`a.b` walks nested objects). */
export function bounds(schema: TSchema, path: string): Bounds {
  type Node = { properties?: Record<string, Node>; minimum?: number; maximum?: number; default?: number }
  let node = schema as Node
  for (const part of path.split('.')) node = node.properties?.[part] ?? {}
  return { min: node.minimum, max: node.maximum, fallback: node.default }
}

export function boundsHint(b: Bounds, unit = ''): string {
  return `${b.min}–${b.max}${unit}; default ${b.fallback}${unit}.`
}
