import { basename } from 'node:path'
import type { Execution } from './execute-run.ts'
import type { RunEvent } from './run-events.ts'
import { cut, MAX_LOG_CHARS, MAX_LOG_TEXT, MAX_LOGS, MAX_NETWORK } from './run-settings.ts'
import type { ArtifactCandidate } from './store-artifacts.ts'
import { type ErrorOf, testOutcomeOf } from './test-outcome.ts'
import type { LogEntry, NetworkEntry, ScriptError, TestOutcome } from './types.ts'

type Attachment = { name: string; path: string; contentType: string }
type ErrorSource = { message?: unknown; stack?: unknown }

/**
 * Reads a run's events, in order, into what its result shows: logs and network within their limits,
 * pages and their vitals, tests (each by its last attempt), errors and artifact files.
 */
export class EventCollector {
  readonly logs: LogEntry[] = []
  readonly network: NetworkEntry[] = []
  readonly pages = new Map<number, { url: string; vitals: Record<string, unknown> | null }>()
  readonly tests: TestOutcome[] = []
  readonly notes: string[] = []
  readonly artifacts: ArtifactCandidate[] = []
  readonly runnerErrors: ScriptError[] = []
  scriptError: ScriptError | null = null
  scriptDuration: number | null = null
  endStatus: string | null = null
  /** Tests begun and not (yet) ended: those a stopped run was still running. */
  readonly running = new Map<string, RunEvent>()
  /** Each test's last attempt (a script may retry with `test.describe.configure({ retries })`). */
  readonly lastAttempt = new Map<string, TestOutcome>()
  private readonly pageIndexes = new Map<string, number>()
  private droppedLogs: number
  private cutLogs = 0
  private logChars = 0
  private droppedRequests = 0

  private readonly errorOf: ErrorOf
  private readonly clean: (text: string) => string

  constructor(exec: Execution, errorOf: ErrorOf, clean: (text: string) => string) {
    this.droppedLogs = exec.stdoutDropped
    this.errorOf = errorOf
    this.clean = clean
  }

  take(event: RunEvent) {
    switch (event.type) {
      case 'page':
        return this.page(event)
      case 'vitals':
        return this.vitals(event)
      case 'console':
        return this.log({
          time: time(event.at),
          level: String(event.level),
          text: this.clean(String(event.text)),
          pageIndex: this.pageIndexOf(event.pageId),
        })
      case 'stdout':
        return this.log({
          time: time(event.at),
          level: String(event.level),
          text: this.clean(String(event.text)),
          pageIndex: null,
        })
      case 'request':
        return this.request(event)
      case 'screenshot':
        return this.artifacts.push({
          kind: 'screenshot',
          file: String(event.file),
          name: typeof event.name === 'string' ? event.name : null,
          pageIndex: this.pageIndexOf(event.pageId),
          onFailure: Boolean(event.failure),
        })
      case 'trace':
        return this.artifacts.push(fileOf('trace', String(event.file)))
      case 'limit':
        if (!this.notes.includes(String(event.message))) this.notes.push(String(event.message))
        return
      case 'scriptError':
        this.scriptError ??= this.errorOf(event as ErrorSource)
        return
      case 'exit':
        this.scriptDuration = typeof event.duration === 'number' ? event.duration : null
        return
      case 'runnerError':
        return this.runnerErrors.push(this.errorOf(event as ErrorSource))
      case 'end':
        this.endStatus = String(event.status)
        return
      case 'testBegin':
        return this.running.set(String(event.id), event)
      case 'testEnd':
        return this.testEnd(event)
    }
  }

  log(entry: LogEntry) {
    const text = cut(entry.text)
    if (text !== entry.text) this.cutLogs++
    this.logChars += text.length
    if (this.logs.length < MAX_LOGS && this.logChars <= MAX_LOG_CHARS) this.logs.push({ ...entry, text })
    else this.droppedLogs++
  }

  /** What the limits left out, as notes; called once all events and output are in. */
  noteLimits() {
    if (this.cutLogs)
      this.notes.push(`${this.cutLogs} log entries cut to their first ${MAX_LOG_TEXT} characters`)
    if (this.droppedLogs)
      this.notes.push(
        `${this.droppedLogs} log entries left out (at most ${MAX_LOGS} entries, ${MAX_LOG_CHARS} characters)`,
      )
    if (this.droppedRequests)
      this.notes.push(`${this.droppedRequests} network requests left out (at most ${MAX_NETWORK})`)
  }

  private pageIndexOf(id: unknown): number | null {
    if (typeof id !== 'string') return null
    if (!this.pageIndexes.has(id)) this.pageIndexes.set(id, this.pageIndexes.size)
    return this.pageIndexes.get(id) as number
  }

  private page(event: RunEvent) {
    const index = this.pageIndexOf(event.pageId) as number
    if (!this.pages.has(index)) this.pages.set(index, { url: String(event.url ?? ''), vitals: null })
  }

  private vitals(event: RunEvent) {
    const index = this.pageIndexOf(event.pageId)
    if (index === null) return
    const vitals = event.vitals as Record<string, unknown>
    this.pages.set(index, { url: String(vitals.url ?? ''), vitals })
  }

  private request(event: RunEvent) {
    if (this.network.length >= MAX_NETWORK) {
      this.droppedRequests++
      return
    }
    this.network.push({
      pageIndex: this.pageIndexOf(event.pageId),
      url: String(event.url),
      method: String(event.method),
      resourceType: String(event.resourceType),
      status: typeof event.status === 'number' ? event.status : null,
      startedAt: time(event.startTime),
      duration: typeof event.duration === 'number' ? Math.round(event.duration) : null,
      failure: typeof event.failure === 'string' ? event.failure : null,
      requestHeaders: (event.requestHeaders as Record<string, string>) ?? null,
      responseHeaders: (event.responseHeaders as Record<string, string>) ?? null,
    })
  }

  private testEnd(event: RunEvent) {
    this.running.delete(String(event.id))
    const test = testOutcomeOf(event, this.errorOf, this.clean)
    this.tests.push(test)
    this.lastAttempt.set(String(event.id), test)
    for (const attachment of (event.attachments as Attachment[]) ?? []) {
      if (attachment.name === 'trace') {
        this.artifacts.push(fileOf('trace', attachment.path))
      } else if (attachment.name === 'video' && attachment.contentType === 'video/webm') {
        // The config's `use.video`: one recording per page of the test.
        this.artifacts.push(fileOf('video', attachment.path))
      } else if (attachment.contentType === 'image/png') {
        // Playwright's own screenshots (`use.screenshot`), visual diffs and attached images.
        this.artifacts.push({
          kind: 'screenshot',
          file: attachment.path,
          name: basename(attachment.path),
          pageIndex: null,
          onFailure: test.failed,
        })
      }
    }
  }
}

export function time(at: unknown): string {
  return new Date(typeof at === 'number' ? at : Date.now()).toISOString()
}

function fileOf(kind: 'trace' | 'video', file: string): ArtifactCandidate {
  return { kind, file, name: null, pageIndex: null, onFailure: false }
}
