import { CATALOG_CHECK_TYPES, CHECK_TYPE_CATALOG } from '@svc/core/check-type-catalog'
import { useQuery } from '@tanstack/react-query'
import { createContext, memo, useContext, useMemo } from 'react'
import { api } from '../api.ts'
import { CHECK_TYPE_LABELS, formatAgo, formatMs, formatPercent, formatTime } from '../format.ts'
import { overviewQuery } from '../overview-query.ts'
import { Link, setSearch, useLocation } from '../router.tsx'
import { useSession } from '../session.tsx'
import type { CheckStatus, Overview, OverviewCheck } from '../types.ts'
import { Cell, Row, StackTable, type TableColumn } from '../ui/table.tsx'
import { Button, Empty, ErrorBox, Loading, PageHeader, Sparkline, StatusBadge } from '../ui/ui.tsx'

const STATUSES: CheckStatus[] = ['failing', 'degraded', 'passing', 'no-data', 'paused']

/** The "New check" menu: every type core's catalog has, in its order. */
export const NEW_CHECK_TYPES: [string, string][] = CATALOG_CHECK_TYPES.map((type) => [
  type,
  CHECK_TYPE_CATALOG[type].label,
])
interface Filters {
  q: string
  status: string
  type: string
  tag: string
  group: string
  location: string
}

export function OverviewPage() {
  const { search } = useLocation()
  const { canWrite } = useSession()
  const searchText = search.toString()
  const filters = useFilters(searchText)
  // The server filters, orders and pages: the page asks for the rows it shows (OVERVIEW_PAGE_SIZE).
  const overview = useQuery(overviewQuery(searchText))
  const data = overview.data
  const counts = data?.counts
  const allChecks = counts ? Object.values(counts).reduce((sum, count) => sum + count, 0) : 0
  return (
    <>
      <PageHeader
        title="Checks"
        subtitle={data ? `${allChecks} ${allChecks === 1 ? 'check' : 'checks'} in this account` : undefined}
        actions={canWrite && <NewCheckMenu />}
      />
      <StatusTiles counts={counts} selected={filters.status} />
      <FilterBar filters={filters} overview={data} />
      <ErrorBox error={overview.error} />
      {!data ? (
        overview.isPending && <Loading />
      ) : allChecks === 0 ? (
        <Empty>
          <h2>No checks yet</h2>
          <p>Create your first check to start monitoring.</p>
        </Empty>
      ) : (
        <CheckTable overview={data} />
      )}
    </>
  )
}

function useFilters(searchText: string): Filters {
  return useMemo<Filters>(() => {
    const params = new URLSearchParams(searchText)
    return {
      q: params.get('q') ?? '',
      status: params.get('status') ?? '',
      type: params.get('type') ?? '',
      tag: params.get('tag') ?? '',
      group: params.get('group') ?? '',
      location: params.get('location') ?? '',
    }
  }, [searchText])
}

/** A tile per status with its count; a tile filters by its status, a second press clears it. */
function StatusTiles(props: { counts: Overview['counts'] | undefined; selected: string }) {
  return (
    <section className="summary" aria-label="Checks by status">
      {STATUSES.map((status) => (
        <button
          type="button"
          key={status}
          className={`summary-tile tile-${status}`}
          aria-pressed={props.selected === status}
          onClick={() =>
            setSearch({ status: props.selected === status ? undefined : status, page: undefined })
          }
        >
          <span className="summary-count">{props.counts?.[status] ?? 0}</span>
          <StatusBadge status={status} />
        </button>
      ))}
    </section>
  )
}

function FilterBar(props: { filters: Filters; overview: Overview | undefined }) {
  const { filters, overview: data } = props
  const groups = useQuery({
    queryKey: ['check-groups', 'all'],
    queryFn: () => api.get<{ id: number; name: string }[]>('/v1/check-groups?limit=100'),
    staleTime: 60_000,
  })
  const groupNames = new Map((groups.data ?? []).map((group) => [String(group.id), group.name]))
  return (
    <form className="filters" aria-label="Filter checks" onSubmit={(event) => event.preventDefault()}>
      <label className="grow">
        <span className="sr-only">Search by name</span>
        <input
          type="search"
          placeholder="Search checks by name"
          value={filters.q}
          onChange={(event) => setSearch({ q: event.target.value, page: undefined })}
        />
      </label>
      <Select
        label="Status"
        plural="statuses"
        value={filters.status}
        name="status"
        options={STATUSES.map((s) => [s, s])}
      />
      <Select label="Type" value={filters.type} name="type" options={Object.entries(CHECK_TYPE_LABELS)} />
      <Select label="Tag" value={filters.tag} name="tag" options={(data?.tags ?? []).map((t) => [t, t])} />
      <Select
        label="Group"
        value={filters.group}
        name="group"
        options={(data?.groupIds ?? []).map((id) => [
          String(id),
          groupNames.get(String(id)) ?? `Group ${id}`,
        ])}
      />
      <Select
        label="Location"
        value={filters.location}
        name="location"
        options={(data?.locations ?? []).map((l) => [l, l])}
      />
    </form>
  )
}

function Select(props: {
  label: string
  plural?: string
  name: string
  value: string
  options: [string, string][]
}) {
  return (
    <label className="filter-select">
      <span className="sr-only">{props.label}</span>
      <select
        value={props.value}
        onChange={(event) => setSearch({ [props.name]: event.target.value, page: undefined })}
      >
        <option value="">{`All ${props.plural ?? `${props.label.toLowerCase()}s`}`}</option>
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  )
}

function NewCheckMenu() {
  return (
    <details className="menu">
      <summary className="btn btn-primary">New check</summary>
      <ul className="menu-list">
        {NEW_CHECK_TYPES.map(([type, label]) => (
          <li key={type}>
            <Link href={`/checks/new?type=${type}`}>{label}</Link>
          </li>
        ))}
      </ul>
    </details>
  )
}

// Rows re-render only when their check changes (the query keeps unchanged checks' objects from poll to
// poll); the "last run" texts follow the clock through this context instead of re-rendering every row.
const NowContext = createContext(Date.now())

const CHECK_COLUMNS: TableColumn[] = [
  { label: 'Name' },
  { label: 'Status' },
  { label: 'Type', className: 'hide-sm' },
  { label: 'Last run', className: 'hide-sm' },
  { label: 'Availability (24 h)', className: 'num' },
  { label: 'Response time (24 h)', className: 'hide-sm' },
]

function CheckTable(props: { overview: Overview }) {
  const { checks: rows, total, page, limit } = props.overview
  if (total === 0) return <Empty>No checks match these filters.</Empty>
  const pages = Math.ceil(total / limit)
  const first = (page - 1) * limit
  return (
    <NowContext.Provider value={Date.now()}>
      <div className="table-wrap">
        <StackTable className="checks-table" columns={CHECK_COLUMNS}>
          {rows.map((check) => (
            <CheckRow key={check.id} check={check} />
          ))}
        </StackTable>
        {pages > 1 && (
          <nav className="pager" aria-label="Pages of checks">
            <span className="muted">
              {first + 1}–{first + rows.length} of {total} · page {page} of {pages}
            </span>
            <Button
              className="btn-small"
              disabled={page <= 1}
              onClick={() => setSearch({ page: page - 1 > 1 ? String(page - 1) : undefined })}
            >
              Previous
            </Button>
            <Button
              className="btn-small"
              disabled={page >= pages}
              onClick={() => setSearch({ page: String(page + 1) })}
            >
              Next
            </Button>
          </nav>
        )}
      </div>
    </NowContext.Provider>
  )
}

const CheckRow = memo(function CheckRow(props: { check: OverviewCheck }) {
  const { check } = props
  return (
    <Row className={`row-${check.status}`}>
      <Cell label="Name" className="cell-primary">
        <Link href={`/checks/${check.id}`} className="check-name">
          {check.name}
        </Link>
        {check.muted && <span className="chip">muted</span>}
        {check.tags.length > 0 && (
          <span className="tags">
            {check.tags.slice(0, 3).map((tag) => (
              <span key={tag} className="tag">
                {tag}
              </span>
            ))}
          </span>
        )}
      </Cell>
      <Cell label="Status">
        <StatusBadge status={check.status} />
      </Cell>
      <Cell label="Type" className="hide-sm">
        {CHECK_TYPE_LABELS[check.checkType] ?? check.checkType}
      </Cell>
      <Cell label="Last run" className="hide-sm" title={formatTime(check.lastRunAt, true)}>
        <Ago iso={check.lastRunAt} />
      </Cell>
      <Cell label="Availability (24 h)" className="num">
        {formatPercent(check.availability24h)}
      </Cell>
      <Cell label="Response time (24 h)" className="hide-sm">
        {check.lastResponseTime === null && check.responseTimes24h.every((value) => value === null) ? (
          <span className="muted">—</span>
        ) : (
          <div className="spark-cell">
            <Sparkline values={check.responseTimes24h} label={`Hourly response time of ${check.name}`} />
            <span className="muted">{formatMs(check.lastResponseTime)}</span>
          </div>
        )}
      </Cell>
    </Row>
  )
})

function Ago(props: { iso: string | null }) {
  return formatAgo(props.iso, useContext(NowContext))
}
