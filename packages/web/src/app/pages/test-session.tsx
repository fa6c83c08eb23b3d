import { useQuery } from '@tanstack/react-query'
import { api } from '../api.ts'
import { CHECK_TYPE_LABELS, formatMs, formatTime } from '../format.ts'
import { Link } from '../router.tsx'
import type { CheckResult, CheckStatus } from '../types.ts'
import { Cell, Row, StackTable, type TableColumn } from '../ui/table.tsx'
import { Card, ErrorBox, KeyValues, Loading, PageHeader } from '../ui/ui.tsx'
import { ResultView } from './result.tsx'

/**
 * A test session: checks run once by `svc test`, `checkly test` or `checkly trigger` (or the API), with
 * each run's result. The CLIs print this page's link. It follows the session until every run ended.
 */

export type SessionStatus = 'RUNNING' | 'PASSED' | 'FAILED' | 'CANCELLED'

interface SessionResult {
  testSessionResultId: string
  checkId: string | null
  checkType: string
  name: string
  runLocation: string
  status: SessionStatus
  hasFailures: boolean
  isDegraded: boolean
  responseTime: number | null
  startedAt: string | null
}

interface TestSession {
  testSessionId: string
  name: string
  status: SessionStatus
  startedAt: string
  stoppedAt: string | null
  timeElapsed: number
  results: SessionResult[]
}

/** How often a session still running is read again: results show within this long of their end. */
const FOLLOW_MS = 2000

const BADGE: Record<SessionStatus, CheckStatus> = {
  RUNNING: 'no-data',
  PASSED: 'passing',
  FAILED: 'failing',
  CANCELLED: 'paused',
}
const WORDS: Record<SessionStatus, string> = {
  RUNNING: 'Running',
  PASSED: 'Passed',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
}

/** The badge of a session or run, in the session's own words (Passed, Failed, Cancelled). */
export function SessionStatusText(props: { status: SessionStatus }) {
  if (props.status === 'RUNNING') return <span className="muted">{WORDS.RUNNING}…</span>
  return (
    <span className={`status status-${BADGE[props.status]}`}>
      <span className="dot" aria-hidden="true" />
      {WORDS[props.status]}
    </span>
  )
}

function useSession(sessionId: string) {
  return useQuery({
    queryKey: ['test-session', sessionId],
    queryFn: () => api.get<TestSession>(`/v1/test-sessions/${sessionId}`),
    refetchInterval: (query) => (query.state.data?.status === 'RUNNING' ? FOLLOW_MS : false),
  })
}

export default function TestSessionPage(props: { sessionId: string }) {
  const session = useSession(props.sessionId)
  if (session.isPending) return <Loading />
  if (session.error || !session.data) return <ErrorBox error={session.error} />
  const data = session.data
  return (
    <>
      <PageHeader
        crumbs={<Link href="/test-sessions">Test sessions</Link>}
        title={data.name}
        subtitle={<SessionStatusText status={data.status} />}
      />
      <Card>
        <KeyValues
          rows={[
            ['Status', WORDS[data.status]],
            ['Started', formatTime(data.startedAt, true)],
            ['Ended', data.stoppedAt ? formatTime(data.stoppedAt, true) : '—'],
            ['Took', formatMs(data.timeElapsed)],
          ]}
        />
      </Card>
      <SessionResults session={data} />
    </>
  )
}

const SESSION_COLUMNS: TableColumn[] = [
  { label: 'Result' },
  { label: 'Check' },
  { label: 'Type', className: 'hide-sm' },
  { label: 'Location' },
  { label: 'Response time', className: 'num' },
]

/** Each run's verdict (a link to its result once it ended), check, type, location and response time. */
function SessionResults(props: { session: TestSession }) {
  const data = props.session
  return (
    <Card title={`Results (${data.results.length})`}>
      <div className="table-wrap">
        <StackTable columns={SESSION_COLUMNS}>
          {data.results.map((result) => (
            <Row key={result.testSessionResultId}>
              <Cell label="Result">
                {result.status === 'RUNNING' ? (
                  <SessionStatusText status={result.status} />
                ) : (
                  <Link
                    href={`/test-sessions/${data.testSessionId}/results/${result.testSessionResultId}`}
                    aria-label={`${WORDS[result.status]}: result of ${result.name}`}
                  >
                    <SessionStatusText status={result.status} />
                  </Link>
                )}
              </Cell>
              <Cell label="Check">
                {result.checkId ? <Link href={`/checks/${result.checkId}`}>{result.name}</Link> : result.name}
              </Cell>
              <Cell label="Type" className="hide-sm">
                {CHECK_TYPE_LABELS[result.checkType] ?? result.checkType}
              </Cell>
              <Cell label="Location">{result.runLocation}</Cell>
              <Cell label="Response time" className="num">
                {formatMs(result.responseTime)}
              </Cell>
            </Row>
          ))}
        </StackTable>
      </div>
    </Card>
  )
}

export function TestSessionResultPage(props: { sessionId: string; resultId: string }) {
  const session = useSession(props.sessionId)
  const result = useQuery({
    queryKey: ['test-session-result', props.sessionId, props.resultId],
    queryFn: () => api.get<CheckResult>(`/v1/test-sessions/${props.sessionId}/results/${props.resultId}`),
  })
  if (result.isPending) return <Loading />
  if (result.error || !result.data) return <ErrorBox error={result.error} />
  return (
    <ResultView
      data={result.data}
      crumbs={
        <>
          <Link href="/test-sessions">Test sessions</Link> /{' '}
          <Link href={`/test-sessions/${props.sessionId}`}>{session.data?.name ?? 'Session'}</Link>
        </>
      }
    />
  )
}
