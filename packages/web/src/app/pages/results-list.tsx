import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api, query } from '../api.ts'
import { formatMs, formatTime } from '../format.ts'
import { Link } from '../router.tsx'
import type { CheckResult } from '../types.ts'
import { Button, Card, Empty, ErrorBox, Loading, ResultBadge } from '../ui/ui.tsx'

const PAGE_SIZE = 20

function verdictOf(result: CheckResult): string {
  return result.hasFailures ? 'Failing' : result.isDegraded ? 'Degraded' : 'Passing'
}
const WINDOWS: Record<string, number | undefined> = {
  any: undefined,
  '1h': 3600,
  '24h': 86_400,
  '7d': 604_800,
}

export function ResultsList(props: { checkId: string; locations: string[] }) {
  const [failedOnly, setFailedOnly] = useState(false)
  const [location, setLocation] = useState('')
  const [window, setWindow] = useState('any')
  const [page, setPage] = useState(1)
  const seconds = WINDOWS[window]
  const results = useQuery({
    queryKey: ['results', props.checkId, failedOnly, location, window, page],
    queryFn: () =>
      api.page<CheckResult>(
        `/v1/check-results/${props.checkId}${query({
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
        <>
          <label className="checkbox" style={{ margin: 0 }}>
            <input
              type="checkbox"
              checked={failedOnly}
              onChange={(event) => reset(setFailedOnly)(event.target.checked)}
            />
            Failed only
          </label>
          <label>
            <span className="sr-only">Location</span>
            <select value={location} onChange={(event) => reset(setLocation)(event.target.value)}>
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
            <select value={window} onChange={(event) => reset(setWindow)(event.target.value)}>
              <option value="any">Any time</option>
              <option value="1h">Last hour</option>
              <option value="24h">Last 24 hours</option>
              <option value="7d">Last 7 days</option>
            </select>
          </label>
        </>
      }
    >
      <ErrorBox error={results.error} />
      {results.isPending ? (
        <Loading />
      ) : results.data?.items.length === 0 ? (
        <Empty>No results yet.</Empty>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Result</th>
                <th scope="col">Started</th>
                <th scope="col">Location</th>
                <th scope="col" className="num">
                  Response time
                </th>
                <th scope="col" className="hide-sm">
                  Error
                </th>
              </tr>
            </thead>
            <tbody>
              {results.data?.items.map((result) => (
                <tr key={result.id}>
                  <td>
                    <Link
                      href={`/checks/${props.checkId}/results/${result.id}`}
                      aria-label={`${verdictOf(result)} result of ${formatTime(result.startedAt, true)}`}
                    >
                      <ResultBadge failed={result.hasFailures} degraded={result.isDegraded} />
                    </Link>
                  </td>
                  <td>{formatTime(result.startedAt, true)}</td>
                  <td>{result.runLocation}</td>
                  <td className="num">{formatMs(result.responseTime)}</td>
                  <td className="hide-sm muted">{result.error?.message?.slice(0, 120) ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
