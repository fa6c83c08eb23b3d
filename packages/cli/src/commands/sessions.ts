import type { ApiClient } from '../api-client.ts'
import type { RunReport } from './reporters.ts'

/** A result of a test session as the server streams it. */
export interface SessionResult {
  testSessionResultId: string
  testSessionResultLink: string
  checkId: string | null
  checkType: string
  name: string
  runLocation: string
  status: string
  hasFailures: boolean
  hasErrors: boolean
  isDegraded: boolean
  responseTime: number | null
}

/**
 * Reads `GET /v1/test-sessions/{id}/events` (Server-Sent Events) and calls `onResult` with each result as
 * its run ends; resolves with the `complete` frame's session.
 */
export async function followTestSession(
  client: ApiClient,
  sessionId: string,
  onResult: (result: SessionResult) => Promise<void>,
): Promise<{ status: string }> {
  const response = await fetch(client.url(`/v1/test-sessions/${sessionId}/events`), {
    headers: { ...client.headers(), accept: 'text/event-stream' },
  })
  if (!response.ok || !response.body) throw new Error(`Following the session failed: ${response.status}`)
  const decoder = new TextDecoder()
  let buffered = ''
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true })
    let end = buffered.indexOf('\n\n')
    while (end >= 0) {
      const frame = buffered.slice(0, end)
      buffered = buffered.slice(end + 2)
      end = buffered.indexOf('\n\n')
      const event = /^event: (.*)$/m.exec(frame)?.[1]
      const data = /^data: (.*)$/m.exec(frame)?.[1]
      if (!event || data === undefined) continue
      if (event === 'result') await onResult(JSON.parse(data) as SessionResult)
      else if (event === 'complete') return JSON.parse(data) as { status: string }
      else if (event === 'error') throw new Error((JSON.parse(data) as { message: string }).message)
    }
  }
  throw new Error('The server ended the session stream before the session completed')
}

/** A finished result as the reporters take it; a failure's error message is read from the result. */
export async function reportOf(client: ApiClient, result: SessionResult): Promise<RunReport> {
  const passed = !result.hasFailures && !result.hasErrors && result.status !== 'CANCELLED'
  let error: string | null = result.status === 'CANCELLED' ? 'cancelled' : null
  if (!passed && !error) {
    const path = new URL(result.testSessionResultLink).pathname
    const full = await client.get<{ error?: { message?: string } | null }>(path).catch(() => undefined)
    error = full?.error?.message ?? 'failed'
  }
  return {
    checkId: result.checkId ?? '',
    name: result.name,
    checkType: result.checkType,
    location: result.runLocation,
    passed,
    degraded: result.isDegraded,
    responseTime: result.responseTime ?? 0,
    error,
  }
}
