import { type AssertionOutcome, evaluateAssertion } from '@svc/core'
import type { Hop } from './fetch-once.ts'
import type { HttpJob } from './http-job.ts'

export function evaluateAssertions(job: HttpJob, hop: Hop, total: number): AssertionOutcome[] {
  const assertions = job.request.assertions ?? []
  if (assertions.length === 0) return []
  // Parsed only when asked for: a body that isn't JSON costs a thrown SyntaxError per run.
  const json = assertions.some((a) => a.source === 'JSON_BODY') ? parseJson(hop.text) : undefined
  const sources: Record<string, unknown> = {
    STATUS_CODE: hop.response.status,
    JSON_BODY: json,
    TEXT_BODY: hop.text,
    HEADERS: hop.response.headers,
    RESPONSE_TIME: Math.round(total),
  }
  return assertions.map((assertion) => {
    // No JSON parses to undefined: an HTML error page must not pass `$.error IS_NULL`.
    if (assertion.source === 'JSON_BODY' && json === undefined)
      return { ...assertion, actual: null, passed: false, error: 'The response body is not JSON' }
    // Header names are case-insensitive, and the response's are lowercase.
    if (assertion.source === 'HEADERS' && !assertion.property && assertion.comparison.endsWith('HAS_KEY')) {
      const target = assertion.target?.toLowerCase()
      return {
        ...evaluateAssertion({ ...assertion, target }, hop.response.headers),
        target: assertion.target,
      }
    }
    return evaluateAssertion(assertion, sources[assertion.source])
  })
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
