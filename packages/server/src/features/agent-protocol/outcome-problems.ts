import type { JobResultBody } from '@svc/core'
import { AGENT_DETAILS, SCRIPT_CHECK_TYPES } from '@svc/core'
import { badRequest, type HttpError } from '../../http/errors.ts'
import { compileValidator } from '../../http/validation.ts'
import { artifactKey } from '../artifacts/artifact-store.ts'

/** The 400 for a posted outcome's detail or times, if any. */
export function outcomeProblem(body: JobResultBody, checkType: string, path: string): HttpError | undefined {
  const malformed = detailProblem(checkType, body.outcome.detail, `${path}.outcome.detail`)
  if (malformed !== undefined) return malformed
  for (const field of ['startedAt', 'stoppedAt'] as const) {
    // A time the schema takes but no Date holds (a leap second, year 0): 400, not a 500 on storing.
    if (Number.isNaN(Date.parse(body.outcome.verdict[field]))) {
      const at = `${path}.outcome.verdict.${field}`
      return badRequest(`${at} is not a valid time`, {
        errors: [{ path: at, message: 'is not a valid time' }],
      })
    }
  }
  return undefined
}

/**
 * How deep a posted detail may nest objects and lists: far beyond any run's (each nested `test.step` of a
 * script adds two levels), and well within what the store's JSON.stringify and the readers of a detail
 * can walk (thousands of levels overflowed the stack: a 500 and no result).
 */
export const MAX_DETAIL_DEPTH = 500

/** The schema of each check type's detail, compiled once (the types sharing one share its validator). */
const detailValidators = new Map(
  [...new Set(Object.values(AGENT_DETAILS))].map((schema) => [schema, compileValidator(schema)]),
)

/**
 * The 400 for a posted detail (at `path` in the body), if any: its nesting, a script outcome's artifact lists,
 * then what the server reads of it (AGENT_DETAILS, by the check's type: an agent of another version may send
 * any shape, and alerting, analytics and the results API read these fields as the runner types them).
 */
function detailProblem(checkType: string, detail: unknown, path: string): HttpError | undefined {
  const found = nestedDeeperThan(detail, MAX_DETAIL_DEPTH)
    ? { field: '', message: `is nested deeper than ${MAX_DETAIL_DEPTH} levels` }
    : artifactListProblem(checkType, detail)
  if (found !== undefined) {
    const at = `${path}${found.field ? `.${found.field}` : ''}`
    return badRequest(`${at} ${found.message}`, { errors: [{ path: at, message: found.message }] })
  }
  const schema = AGENT_DETAILS[checkType as keyof typeof AGENT_DETAILS]
  return schema && detailValidators.get(schema)?.(detail, path)
}

/** Whether `value` nests objects and lists more than `max` levels deep; walked without recursion. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: { value: unknown; level: number }[] = [{ value, level: 1 }]
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue
    if (next.level > max) return true
    for (const inner of Object.values(next.value)) pending.push({ value: inner, level: next.level + 1 })
  }
  return false
}

/**
 * What is wrong with a script outcome's lists of its artifacts, if anything: the results API links
 * each by its path, so each must be an object with a path inside the result.
 */
function artifactListProblem(
  checkType: string,
  detail: unknown,
): { field: string; message: string } | undefined {
  if (!(SCRIPT_CHECK_TYPES as readonly string[]).includes(checkType) || detail == null) return undefined
  if (typeof detail !== 'object' || Array.isArray(detail)) return { field: '', message: 'must be an object' }
  for (const field of ['screenshots', 'traces', 'videos']) {
    const list = (detail as Record<string, unknown>)[field]
    if (list === undefined) continue
    const listed = (item: unknown) => {
      const path = (item as { path?: unknown } | null)?.path
      return typeof path === 'string' && artifactKey('check', 'result', path) !== undefined
    }
    if (!Array.isArray(list) || !list.every(listed)) {
      return { field, message: 'must be a list of artifacts, each with a path inside its result' }
    }
  }
  return undefined
}
