import { useCallback, useMemo, useRef, useState } from 'react'
import { ApiError, formPathOf } from '../api.ts'
import type { Draft } from './form-fields.tsx'

/**
 * The API's field errors stay beside their fields until the person edits that field: editing a field
 * takes its messages away (the next save answers afresh). Every form that shows field errors goes
 * through here: `useDraft` for forms over a draft object, `useEditedErrors` for forms of loose values.
 */

const NONE: ReadonlySet<string> = new Set()

/** Whether editing `field` answers the error at `errorPath`: the same field, inside it, or around it. */
function touches(errorPath: string, field: string): boolean {
  return errorPath === field || errorPath.startsWith(`${field}.`) || field.startsWith(`${errorPath}.`)
}

/** `error` without the field errors at `cleared` paths; null once none is left. */
export function withoutCleared(error: unknown, cleared: ReadonlySet<string>): unknown {
  if (!(error instanceof ApiError) || cleared.size === 0) return error
  const kept = error.fieldErrors.filter((entry) => !cleared.has(formPathOf(entry)))
  if (kept.length === error.fieldErrors.length) return error
  const [first] = kept
  if (!first) return null
  // The message names the first field error: name the first one still standing instead.
  const original = error.fieldErrors[0]
  const named = original && error.message === `${original.path} ${original.message}`
  const message = named ? `${first.path} ${first.message}` : error.message
  return new ApiError(error.status, message, kept, error.retryAfterSeconds)
}

export function useEditedErrors(error: unknown): { error: unknown; edited(...fields: string[]): void } {
  // The paths cleared belong to one error: a new save's error starts with none.
  const [cleared, setCleared] = useState<{ of: unknown; paths: ReadonlySet<string> }>({
    of: null,
    paths: NONE,
  })
  const paths = cleared.of === error ? cleared.paths : NONE
  const shown = useMemo(() => withoutCleared(error, paths), [error, paths])
  const edited = useCallback(
    (...fields: string[]) => {
      if (!(error instanceof ApiError)) return
      const hit = error.fieldErrors
        .map(formPathOf)
        .filter((path) => fields.some((field) => touches(path, field)))
      if (hit.length === 0) return
      setCleared((current) => ({
        of: error,
        paths: new Set([...(current.of === error ? current.paths : []), ...hit]),
      }))
    },
    [error],
  )
  return { error: shown, edited }
}

/**
 * The value a form holds for an error's path, or the nearest one on the way to it: the form may keep a
 * plain value where the body has an object (a card's service id, where the body has `{ id }`).
 */
function valueNear(draft: unknown, path: string): unknown {
  let value = draft
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return value
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

function changedErrorPaths(error: unknown, before: Draft, after: Draft): string[] {
  if (!(error instanceof ApiError)) return []
  return error.fieldErrors
    .map(formPathOf)
    .filter((path) => JSON.stringify(valueNear(before, path)) !== JSON.stringify(valueNear(after, path)))
}

export type DraftUpdate = Draft | ((current: Draft) => Draft)

/**
 * A form's draft with the save's `error` as it should show: an error's field changed since that save
 * no longer shows its messages. `bind` is what the bound inputs take.
 */
export function useDraft(initial: Draft | (() => Draft), error: unknown) {
  const [draft, setDraftState] = useState<Draft>(initial)
  const { error: shown, edited } = useEditedErrors(error)
  const latest = useRef(draft)
  const errorNow = useRef(error)
  errorNow.current = error
  const editedNow = useRef(edited)
  editedNow.current = edited
  // Stable, so an editor that keeps its first callback (CodeMirror) still clears errors.
  const setDraft = useCallback((update: DraftUpdate) => {
    const before = latest.current
    const after = typeof update === 'function' ? update(before) : update
    latest.current = after
    const changed = changedErrorPaths(errorNow.current, before, after)
    if (changed.length > 0) editedNow.current(...changed)
    setDraftState(after)
  }, [])
  return { draft, setDraft, error: shown, bind: { draft, onChange: setDraft, error: shown } }
}
