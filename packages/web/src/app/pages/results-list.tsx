import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api, query } from '../api.ts'
import { formatMs, formatTime } from '../format.ts'
import { Link } from '../router.tsx'
import type { CheckResult } from '../types.ts'
import { Cell, Row, StackTable, type TableColumn } from '../ui/table.tsx'
import { Button, Card, Empty, ErrorBox, Loading, ResultBadge } from '../ui/ui.tsx'

const PAGE_SIZE = 20

const RESULT_COLUMNS: TableColumn[] = [
  { label: 'Result' },
  { label: 'Started' },
  { label: 'Location' },
  { label: 'Response time', className: 'num' },
  { label: 'Error', className: 'hide-sm' },
]

function verdictOf(result: CheckResult): string {
  return result.hasFailures ? 'Failing' : result.isDegraded ? 'Degraded' : 'Passing'
}
const WINDOWS: Record<string, number | undefined> = {
  any: undefined,
  '1h': 3600,
  '24h': 86_400,
  '7d': 604_800,
}

/** A page of the check's results, newest first; the first page is polled so new results show. */
function useResults(
  checkId: string,
  filters: { failedOnly: boolean; location: string; window: string; page: number },
) {
  const { failedOnly, location, window, page } = filters
  const seconds = WINDOWS[window]
  return useQuery({
    queryKey: ['results', checkId, failedOnly, location, window, page],
    queryFn: () =>
      api.page<CheckResult>(
        `/v1/check-results/${checkId}${query({
          limit: PAGE_SIZE,
          page,
          hasFailures: failedOnly ? true : undefined,
          location,
          from: seconds ? Math.floor(Date.now() / 1000) - seconds : undefined,
        })}`,
      ),
    refetchInterval: page === 1 ? 3000 : false,
    placeholderData: (previous) => previous,
  })
}

export function ResultsList(props: { checkId: string; locations: string[] }) {
  const [failedOnly, setFailedOnly] = useState(false)
  const [location, setLocation] = useState('')
  const [window, setWindow] = useState('any')
  const [page, setPage] = useState(1)
  const results = useResults(props.checkId, { failedOnly, location, window, page })
  const pages = Math.max(1, Math.ceil((results.data?.total ?? 0) / PAGE_SIZE))
  const reset =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value)
      setPage(1)
    }
  return (
    <Card
      title="Results"
      actions={
        <ResultFilters
          failedOnly={failedOnly}
          onFailedOnly={reset(setFailedOnly)}
          location={location}
          locations={props.locations}
          onLocation={reset(setLocation)}
          window={window}
          onWindow={reset(setWindow)}
        />
      }
    >
      <ErrorBox error={results.error} />
      {results.isPending ? (
        <Loading />
      ) : results.data?.items.length === 0 ? (
        <Empty>No results yet.</Empty>
      ) : (
        <ResultsTable checkId={props.checkId} results={results.data?.items ?? []} />
      )}
      <div className="pager">
        <span className="muted">
          Page {page} of {pages}
        </span>
        <Button className="btn-small" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Newer
        </Button>
        <Button className="btn-small" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          Older
        </Button>
      </div>
    </Card>
  )
}

function ResultFilters(props: {
  failedOnly: boolean
  onFailedOnly(value: boolean): void
  location: string
  locations: string[]
  onLocation(value: string): void
  window: string
  onWindow(value: string): void
}) {
  return (
    <>
      <label className="checkbox" style={{ margin: 0 }}>
        <input
          type="checkbox"
          checked={props.failedOnly}
          onChange={(event) => props.onFailedOnly(event.target.checked)}
        />
        Failed only
      </label>
      <label>
        <span className="sr-only">Location</span>
        <select value={props.location} onChange={(event) => props.onLocation(event.target.value)}>
          <option value="">All locations</option>
          {props.locations.map((entry) => (
            <option key={entry} value={entry}>
              {entry}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span className="sr-only">Time range</span>
        <select value={props.window} onChange={(event) => props.onWindow(event.target.value)}>
          <option value="any">Any time</option>
          <option value="1h">Last hour</option>
          <option value="24h">Last 24 hours</option>
          <option value="7d">Last 7 days</option>
        </select>
      </label>
    </>
  )
}

function ResultsTable(props: { checkId: string; results: CheckResult[] }) {
  return (
    <div className="table-wrap">
      <StackTable columns={RESULT_COLUMNS}>
        {props.results.map((result) => (
          <Row key={result.id}>
            <Cell label="Result">
              <Link
                href={`/checks/${props.checkId}/results/${result.id}`}
                aria-label={`${verdictOf(result)} result of ${formatTime(result.startedAt, true)}`}
              >
                <ResultBadge failed={result.hasFailures} degraded={result.isDegraded} />
              </Link>
            </Cell>
            <Cell label="Started">{formatTime(result.startedAt, true)}</Cell>
            <Cell label="Location">{result.runLocation}</Cell>
            <Cell label="Response time" className="num">
              {formatMs(result.responseTime)}
            </Cell>
            <Cell label="Error" className="hide-sm muted">
              {result.error?.message?.slice(0, 120) ?? ''}
            </Cell>
          </Row>
        ))}
      </StackTable>
    </div>
  )
}
