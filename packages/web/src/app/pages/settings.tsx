import { useQuery } from '@tanstack/react-query'
import { api } from '../api.ts'
import { setSearch, useLocation } from '../router.tsx'
import { AccountSettings } from '../settings/account-settings.tsx'
import { clientCertificates } from '../settings/client-certificates.tsx'
import { DashboardIncidentsPage } from '../settings/dashboard-incidents.tsx'
import { dashboards } from '../settings/dashboards.tsx'
import type { ResourceDescriptor } from '../settings/descriptor.ts'
import { members } from '../settings/members.tsx'
import { ResourcePage } from '../settings/resource-page.tsx'
import { alertChannels, alertLog, groups, maintenance, variables } from '../settings/resources.tsx'
import {
  apiKeys,
  incidentsFor,
  privateLocations,
  services,
  statusPages,
} from '../settings/resources-more.tsx'
import { snippets } from '../settings/snippets.tsx'
import { Empty, ErrorBox, Loading, PageHeader } from '../ui/ui.tsx'

// biome-ignore lint/suspicious/noExplicitAny: descriptors of items of many shapes
const RESOURCES: Record<string, ResourceDescriptor<any>> = {
  groups,
  'alert-channels': alertChannels,
  'alert-log': alertLog,
  maintenance,
  variables,
  snippets,
  'client-certificates': clientCertificates,
  'private-locations': privateLocations,
  'status-pages': statusPages,
  dashboards,
  services,
  'api-keys': apiKeys,
  members,
}

export default function SettingsPage(props: { resource: string; id?: string }) {
  if (props.resource === 'account') return <AccountSettings />
  if (props.resource === 'incidents') return <IncidentsPage id={props.id} />
  if (props.resource === 'dashboard-incidents') return <DashboardIncidentsPage id={props.id} />
  const descriptor = RESOURCES[props.resource]
  if (!descriptor) return <Empty>Page not found.</Empty>
  return <ResourcePage key={`${props.resource}/${props.id ?? ''}`} descriptor={descriptor} id={props.id} />
}

/** Incidents belong to a status page: the page is chosen first (the `page` query parameter). */
function IncidentsPage(props: { id?: string }) {
  const { search } = useLocation()
  const pages = useQuery({
    queryKey: ['status-pages'],
    queryFn: () => api.get<{ id: string; name: string }[]>('/v3/status-pages?limit=100'),
  })
  if (pages.isPending) return <Loading />
  if (pages.error) return <ErrorBox error={pages.error} />
  const list = pages.data ?? []
  if (list.length === 0)
    return (
      <>
        <PageHeader title="Incidents" />
        <Empty>Incidents are posted on a status page. Create a status page first.</Empty>
      </>
    )
  const chosen = list.find((page) => page.id === search.get('page')) ?? list[0]
  const descriptor = { ...incidentsFor(chosen?.id as string) }
  // The list, new and edit links keep the chosen page, so an incident is made and listed on that page.
  descriptor.search = `?page=${chosen?.id}`
  return (
    <>
      {list.length > 1 && (
        <label className="page-picker">
          Status page{' '}
          <select value={chosen?.id} onChange={(event) => setSearch({ page: event.target.value })}>
            {list.map((page) => (
              <option key={page.id} value={page.id}>
                {page.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <ResourcePage key={`${chosen?.id}/${props.id ?? ''}`} descriptor={descriptor} id={props.id} />
    </>
  )
}
