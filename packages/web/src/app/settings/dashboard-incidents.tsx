import { useQuery } from '@tanstack/react-query'
import { api, listOf } from '../api.ts'
import { currentTimeZone, formatTime } from '../format.ts'
import { Link, setSearch, useLocation } from '../router.tsx'
import type { Draft } from '../ui/form-fields.tsx'
import { Empty, ErrorBox, Loading, PageHeader } from '../ui/ui.tsx'
import { isoToWallTime, wallTimeToIso } from '../zoned-time.ts'
import type { ResourceDescriptor } from './descriptor.ts'
import { IncidentUpdates } from './incident-updates.tsx'
import { ResourcePage } from './resource-page.tsx'

/**
 * A dashboard's incidents (`/v1/incidents`): a name, an impact and a period, told in updates; its public
 * page shows them when the dashboard has "Show incidents". The dashboard is chosen by `?dashboard=<id>`.
 */

// biome-ignore lint/suspicious/noExplicitAny: items as the API answers them
type Item = Record<string, any>

const KEY = 'dashboard-incidents'
const IMPACTS: [string, string][] = [
  ['MINOR', 'Minor'],
  ['MAJOR', 'Major'],
  ['MAINTENANCE', 'Maintenance'],
]
const STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED', 'MAINTENANCE']

const latestStatus = (item: Item): string | undefined => item.incidentUpdates?.at(-1)?.status

/** Times are typed and shown as the account's time zone's wall clock. */
const toIso = (value: unknown) => wallTimeToIso(value, currentTimeZone()) ?? null

/** Whether it is over: an end still ahead (a maintenance's) leaves it ongoing, as on the public page. */
const hasEnded = (item: Item): boolean => Boolean(item.stoppedAt) && Date.parse(item.stoppedAt) <= Date.now()

/** Ends an incident now: its name and impact stay, `stoppedAt` is set. */
async function closeIncident(item: Item): Promise<string> {
  // The list may be older than an end set elsewhere.
  if (hasEnded(item)) return `Already ended ${formatTime(item.stoppedAt)}.`
  await api.put(`/v1/incidents/${item.id}`, {
    name: item.name,
    impact: item.impact,
    stoppedAt: new Date().toISOString(),
  })
  return 'Closed.'
}

/**
 * When it ended. An end still ahead leaves it ongoing until then, unless its latest update resolved it:
 * the public dashboard lists it as ongoing or recent by the same rule.
 */
function EndOf(props: { item: Item }) {
  const { stoppedAt } = props.item
  if (hasEnded(props.item)) return <>{formatTime(stoppedAt)}</>
  const state = latestStatus(props.item) === 'RESOLVED' ? 'Resolved' : 'Ongoing'
  if (!stoppedAt) return <strong>{state}</strong>
  return (
    <>
      <strong>{state}</strong>, ends {formatTime(stoppedAt)}
    </>
  )
}

const COLUMNS: ResourceDescriptor<Item>['columns'] = [
  { label: 'Name', render: (item) => <strong>{item.name}</strong> },
  {
    label: 'Impact',
    render: (item) => IMPACTS.find(([value]) => value === item.impact)?.[1] ?? item.impact,
  },
  { label: 'Status', render: (item) => <span className="chip">{latestStatus(item) ?? '—'}</span> },
  { label: 'Started', render: (item) => formatTime(item.startedAt) },
  { label: 'Ended', render: (item) => <EndOf item={item} /> },
]

const FIELDS: ResourceDescriptor<Item>['fields'] = [
  { path: 'name', label: 'Name', kind: 'text', required: true },
  { path: 'impact', label: 'Impact', kind: 'select', options: IMPACTS },
  // The first update's fields sit at their path in the body, so the API's errors show beside them.
  {
    path: 'incidentUpdates.0.status',
    label: 'Status',
    kind: 'select',
    options: STATUSES,
    show: (_, creating) => creating,
  },
  {
    path: 'incidentUpdates.0.description',
    label: 'First update',
    kind: 'textarea',
    show: (_, creating) => creating,
  },
  { path: 'startedAt', label: 'Started', kind: 'datetime', hint: 'Empty: when it is posted.' },
  { path: 'stoppedAt', label: 'Ended', kind: 'datetime', hint: 'Empty: ongoing.' },
]

export function dashboardIncidentsFor(dashboardId: number, dashboardName: string): ResourceDescriptor<Item> {
  return {
    key: KEY,
    title: 'Dashboard incidents',
    singular: 'incident',
    description: `Incidents of “${dashboardName}”, shown on its public page when it has “Show incidents”.`,
    listPath: `/v1/incidents?dashboardId=${dashboardId}&limit=100`,
    itemPath: (id) => `/v1/incidents/${id}`,
    createPath: '/v1/incidents',
    updateMethod: 'put',
    // The list carries every update; a read of one carries only the latest unless asked.
    itemFromList: true,
    search: `?dashboard=${dashboardId}`,
    idOf: (item) => item.id,
    nameOf: (item) => item.name,
    columns: COLUMNS,
    fields: FIELDS,
    defaults: { name: '', impact: 'MINOR', incidentUpdates: [{ status: 'INVESTIGATING', description: '' }] },
    toDraft: (item) => ({
      name: item.name,
      impact: item.impact,
      startedAt: isoToWallTime(item.startedAt, currentTimeZone()),
      stoppedAt: isoToWallTime(item.stoppedAt, currentTimeZone()),
    }),
    toBody: (draft: Draft, creating) => {
      const period = { startedAt: toIso(draft.startedAt), stoppedAt: toIso(draft.stoppedAt) }
      if (!creating) return { name: draft.name, impact: draft.impact, ...period }
      const [first] = (draft.incidentUpdates ?? []) as Item[]
      return {
        name: draft.name,
        impact: draft.impact,
        dashboardId,
        // Left empty, the API starts it when it is posted.
        ...(period.startedAt ? { startedAt: period.startedAt } : {}),
        ...(period.stoppedAt ? { stoppedAt: period.stoppedAt } : {}),
        incidentUpdates: [{ status: first?.status, description: first?.description || undefined }],
      }
    },
    actions: [
      { label: 'Close', run: closeIncident, doneAs: (item) => (hasEnded(item) ? 'Ended' : undefined) },
    ],
    detail: (item) => <IncidentUpdates incident={item} queryKey={KEY} notifies={false} statuses={STATUSES} />,
  }
}

interface Dashboard {
  id: number
  header: string
  customUrl: string | null
  enableIncidents: boolean
}

/** The incidents of the dashboard in `?dashboard=` (else the first), with a picker when there are several. */
export function DashboardIncidentsPage(props: { id?: string }) {
  const { search } = useLocation()
  const boards = useQuery({
    queryKey: ['dashboards'],
    queryFn: () => listOf<Dashboard>('/v1/dashboards?limit=100'),
  })
  if (boards.isPending) return <Loading />
  if (boards.error) return <ErrorBox error={boards.error} />
  const list = boards.data ?? []
  const chosen = list.find((board) => String(board.id) === search.get('dashboard')) ?? list[0]
  if (!chosen)
    return (
      <>
        <PageHeader title="Dashboard incidents" />
        <Empty>
          Incidents are shown on a dashboard. <Link href="/settings/dashboards/new">Create a dashboard</Link>{' '}
          first.
        </Empty>
      </>
    )
  return (
    <>
      {!props.id && (
        <nav aria-label="Breadcrumb" className="crumbs">
          <Link href="/settings/dashboards">Dashboards</Link>
        </nav>
      )}
      {list.length > 1 && (
        <label className="page-picker">
          Dashboard{' '}
          <select value={chosen.id} onChange={(event) => setSearch({ dashboard: event.target.value })}>
            {list.map((board) => (
              <option key={board.id} value={board.id}>
                {board.header || board.customUrl || board.id}
              </option>
            ))}
          </select>
        </label>
      )}
      {!chosen.enableIncidents && !props.id && (
        <p className="hint">
          “{chosen.header}” doesn’t show incidents: switch on “Show incidents” in its settings for its page to
          show these.
        </p>
      )}
      <ResourcePage
        key={`${chosen.id}/${props.id ?? ''}`}
        descriptor={dashboardIncidentsFor(chosen.id, chosen.header || chosen.customUrl || String(chosen.id))}
        id={props.id}
      />
    </>
  )
}
