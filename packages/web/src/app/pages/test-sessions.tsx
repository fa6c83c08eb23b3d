import { useInfiniteQuery } from '@tanstack/react-query'
import { api, query } from '../api.ts'
import { formatMs, formatTime } from '../format.ts'
import { Link } from '../router.tsx'
import { Cell, Row, StackTable, type TableColumn } from '../ui/table.tsx'
import { Button, Empty, ErrorBox, Loading, PageHeader } from '../ui/ui.tsx'
import { type SessionStatus, SessionStatusText } from './test-session.tsx'

/** Every test session of the account, newest first: what `svc test`, `checkly test` and the API ran once. */

interface SessionEntry {
  testSessionId: string
  name: string
  provider: string
  status: SessionStatus
  region: string
  running: string[]
  passed: string[]
  failed: string[]
  cancelled: string[]
  startedAt: string
  timeElapsed: number
}

interface SessionList {
  entries: SessionEntry[]
  nextId: string | null
}

const PAGE_SIZE = 25
/** Sessions still running are read again this often, so their counts move without a reload. */
const REFRESH_MS = 5000

const PROVIDERS: Record<string, string> = { API: 'Run (CLI or API)', TRIGGER: 'Trigger' }

export default function TestSessionsPage() {
  const list = useInfiniteQuery({
    queryKey: ['test-sessions'],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      api.get<SessionList>(`/v1/test-sessions${query({ limit: PAGE_SIZE, nextId: pageParam })}`),
    getNextPageParam: (last) => last.nextId ?? undefined,
    refetchInterval: (current) =>
      current.state.data?.pages.some((page) => page.entries.some((entry) => entry.status === 'RUNNING'))
        ? REFRESH_MS
        : false,
  })
  const entries = list.data?.pages.flatMap((page) => page.entries) ?? []
  return (
    <>
      <PageHeader
        title="Test sessions"
        subtitle="Checks run once by svc test, checkly test, checkly trigger or the API, newest first."
      />
      <ErrorBox error={list.error} />
      {list.isPending ? (
        <Loading />
      ) : entries.length === 0 ? (
        <Empty>No test sessions yet. Run one with svc test.</Empty>
      ) : (
        <>
          <SessionsTable entries={entries} />
          {list.hasNextPage && (
            <div className="form-actions">
              <Button disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
                Show older sessions
              </Button>
            </div>
          )}
        </>
      )}
    </>
  )
}

const SESSION_COLUMNS: TableColumn[] = [
  { label: 'Session' },
  { label: 'Status' },
  { label: 'Runs' },
  { label: 'Started' },
  { label: 'Took', className: 'num' },
  { label: 'Provider', className: 'hide-sm' },
  { label: 'Location', className: 'hide-sm' },
]

function SessionsTable(props: { entries: SessionEntry[] }) {
  return (
    <div className="table-wrap">
      <StackTable columns={SESSION_COLUMNS}>
        {props.entries.map((entry) => (
          <Row key={entry.testSessionId}>
            <Cell label="Session">
              <Link href={`/test-sessions/${entry.testSessionId}`}>{entry.name}</Link>
            </Cell>
            <Cell label="Status">
              <SessionStatusText status={entry.status} />
            </Cell>
            <Cell label="Runs">
              <RunCounts entry={entry} />
            </Cell>
            <Cell label="Started">{formatTime(entry.startedAt)}</Cell>
            <Cell label="Took" className="num">
              {entry.status === 'RUNNING' ? '—' : formatMs(entry.timeElapsed)}
            </Cell>
            <Cell label="Provider" className="hide-sm">
              {PROVIDERS[entry.provider] ?? entry.provider}
            </Cell>
            <Cell label="Location" className="hide-sm">
              {entry.region}
            </Cell>
          </Row>
        ))}
      </StackTable>
    </div>
  )
}

/** How many runs passed, failed, are running or were cancelled; counts of 0 are left out. */
function RunCounts(props: { entry: SessionEntry }) {
  const { entry } = props
  const parts = [
    [entry.passed.length, 'passed', 'pass-text'],
    [entry.failed.length, 'failed', 'fail-text'],
    [entry.running.length, 'running', 'muted'],
    [entry.cancelled.length, 'cancelled', 'muted'],
  ] as const
  const shown = parts.filter(([count]) => count > 0)
  if (shown.length === 0) return <span className="muted">none</span>
  return (
    <span className="run-counts">
      {shown.map(([count, word, className], index) => (
        <span key={word} className={className}>
          {index > 0 && ', '}
          {count} {word}
        </span>
      ))}
    </span>
  )
}
