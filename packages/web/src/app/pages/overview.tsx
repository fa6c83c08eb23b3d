import { CATALOG_CHECK_TYPES, CHECK_TYPE_CATALOG } from '@svc/core/check-type-catalog'
import { useQuery } from '@tanstack/react-query'
import { createContext, memo, useContext, useDeferredValue, useMemo } from 'react'
import { api } from '../api.ts'
import { CHECK_TYPE_LABELS, formatAgo, formatMs, formatPercent, formatTime } from '../format.ts'
import { overviewQuery } from '../overview-query.ts'
import { Link, setSearch, useLocation } from '../router.tsx'
import { useSession } from '../session.tsx'
import type { CheckStatus, OverviewCheck } from '../types.ts'
import { Button, Empty, ErrorBox, Loading, PageHeader, Sparkline, StatusBadge } from '../ui/ui.tsx'

const STATUS_ORDER: Record<CheckStatus, number> = {
  failing: 0,
  degraded: 1,
  passing: 2,
  'no-data': 3,
  paused: 4,
}
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

// One collator for the whole sort: localeCompare makes one per comparison.
const NAMES = new Intl.Collator()

function filterChecks(checks: OverviewCheck[], filters: Filters): OverviewCheck[] {
  const needle = filters.q.trim().toLowerCase()
  return checks
    .filter(
      (check) =>
        (!needle || check.name.toLowerCase().includes(needle)) &&
        (!filters.status || check.status === filters.status) &&
        (!filters.type || check.checkType === filters.type) &&
        (!filters.tag || check.tags.includes(filters.tag)) &&
        (!filters.group || String(check.groupId ?? '') === filters.group) &&
        (!filters.location ||
          check.locations.includes(filters.location) ||
          check.privateLocations.includes(filters.location)),
    )
    .sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || NAMES.compare(a.name, b.name))
}

function distinct(
  checks: OverviewCheck[],
  pick: (check: OverviewCheck) => (string | number | null)[],
): string[] {
  const values = new Set<string>()
  for (const check of checks) for (const value of pick(check)) if (value !== null) values.add(String(value))
  return [...values].sort()
}

export function OverviewPage() {
  const { search } = useLocation()
  const { canWrite } = useSession()
  const overview = useQuery(overviewQuery)
  const groups = useQuery({
    queryKey: ['check-groups', 'all'],
    queryFn: () => api.get<{ id: number; name: string }[]>('/v1/check-groups?limit=100'),
    staleTime: 60_000,
  })
  const searchText = search.toString()
  // One object per address, not per render: useDeferredValue compares by identity.
  const filters = useMemo<Filters>(() => {
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
  const deferred = useDeferredValue(filters)
  const checks = overview.data?.checks ?? []
  const visible = useMemo(() => filterChecks(checks, deferred), [checks, deferred])
  const counts = useMemo(() => {
    const result: Record<string, number> = {}
    for (const check of checks) result[check.status] = (result[check.status] ?? 0) + 1
    return result
  }, [checks])
  const groupNames = new Map((groups.data ?? []).map((group) => [String(group.id), group.name]))
  return (
    <>
      <PageHeader
        title="Checks"
        subtitle={
          overview.data
            ? `${checks.length} ${checks.length === 1 ? 'check' : 'checks'} in this account`
            : undefined
        }
        actions={canWrite && <NewCheckMenu />}
      />
      <section className="summary" aria-label="Checks by status">
        {STATUSES.map((status) => (
          <button
            type="button"
            key={status}
            className={`summary-tile tile-${status}`}
            aria-pressed={filters.status === status}
            onClick={() =>
              setSearch({ status: filters.status === status ? undefined : status, page: undefined })
            }
          >
            <span className="summary-count">{counts[status] ?? 0}</span>
            <StatusBadge status={status} />
          </button>
        ))}
      </section>
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
        <Select
          label="Tag"
          value={filters.tag}
          name="tag"
          options={distinct(checks, (c) => c.tags).map((t) => [t, t])}
        />
        <Select
          label="Group"
          value={filters.group}
          name="group"
          options={distinct(checks, (c) => [c.groupId]).map((id) => [
            id,
            groupNames.get(id) ?? `Group ${id}`,
          ])}
        />
        <Select
          label="Location"
          value={filters.location}
          name="location"
          options={distinct(checks, (c) => [...c.locations, ...c.privateLocations]).map((l) => [l, l])}
        />
      </form>
      <ErrorBox error={overview.error} />
      {overview.isPending ? (
        <Loading />
      ) : checks.length === 0 ? (
        <Empty>
          <h2>No checks yet</h2>
          <p>Create your first check to start monitoring.</p>
        </Empty>
      ) : (
        <CheckTable checks={visible} page={Number(new URLSearchParams(searchText).get('page') ?? 1) || 1} />
      )}
    </>
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

/**
 * Rows per page. A page, not the whole list: laying out a table of 1,000 rows kept the first screen from
 * showing for seconds on a busy machine. Failing checks come first, so page 1 holds what needs a look.
 */
export const OVERVIEW_PAGE_SIZE = 50

// Rows re-render only when their check changes (the query keeps unchanged checks' objects from poll to
// poll); the "last run" texts follow the clock through this context instead of re-rendering every row.
const NowContext = createContext(Date.now())

function CheckTable(props: { checks: OverviewCheck[]; page: number }) {
  if (props.checks.length === 0) return <Empty>No checks match these filters.</Empty>
  const pages = Math.ceil(props.checks.length / OVERVIEW_PAGE_SIZE)
  const page = Math.min(Math.max(props.page, 1), pages)
  const first = (page - 1) * OVERVIEW_PAGE_SIZE
  const rows = props.checks.slice(first, first + OVERVIEW_PAGE_SIZE)
  return (
    <NowContext.Provider value={Date.now()}>
      <div className="table-wrap">
        <table className="table checks-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col" className="hide-sm">
                Type
              </th>
              <th scope="col" className="hide-sm">
                Last run
              </th>
              <th scope="col" className="num">
                24 h
              </th>
              <th scope="col" className="hide-sm">
                Response time (24 h)
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((check) => (
              <CheckRow key={check.id} check={check} />
            ))}
          </tbody>
        </table>
        {pages > 1 && (
          <nav className="pager" aria-label="Pages of checks">
            <span className="muted">
              {first + 1}–{first + rows.length} of {props.checks.length} · page {page} of {pages}
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
    <tr className={`row-${check.status}`}>
      <td>
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
      </td>
      <td>
        <StatusBadge status={check.status} />
      </td>
      <td className="hide-sm">{CHECK_TYPE_LABELS[check.checkType] ?? check.checkType}</td>
      <td className="hide-sm" title={formatTime(check.lastRunAt, true)}>
        <Ago iso={check.lastRunAt} />
      </td>
      <td className="num">{formatPercent(check.availability24h)}</td>
      <td className="hide-sm">
        {check.lastResponseTime === null && check.responseTimes24h.every((value) => value === null) ? (
          <span className="muted">—</span>
        ) : (
          <div className="spark-cell">
            <Sparkline values={check.responseTimes24h} label={`Hourly response time of ${check.name}`} />
            <span className="muted">{formatMs(check.lastResponseTime)}</span>
          </div>
        )}
      </td>
    </tr>
  )
})

function Ago(props: { iso: string | null }) {
  return formatAgo(props.iso, useContext(NowContext))
}
