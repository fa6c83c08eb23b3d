import { api } from '../api.ts'
import { formatAgo, formatTime } from '../format.ts'
import type { Draft } from '../ui/form-fields.tsx'
import { CopyButton, StatusBadge } from '../ui/ui.tsx'
import { ChecksPicker } from './checks-picker.tsx'
import type { FieldSpec, ResourceDescriptor } from './descriptor.ts'
import { IncidentUpdates } from './incident-updates.tsx'
import { PrivateLocationDetail } from './private-location-detail.tsx'
import { type CardDraft, CardsEditor, type ImpactDraft, ImpactsEditor } from './status-page-editors.tsx'
import { ThemeColorsEditor } from './theme-colors-editor.tsx'

// biome-ignore lint/suspicious/noExplicitAny: the descriptors read API items of many shapes
type Item = Record<string, any>

const str = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value))

function RawKey(props: { value: string; what: string }) {
  return (
    <div>
      <p>Copy the {props.what} now: it is shown only once.</p>
      <div className="copy-row">
        <span className="copy-label">{props.what}</span>
        <code data-raw-key="">{props.value}</code>
        <CopyButton text={props.value} label={`Copy the ${props.what}`} />
      </div>
    </div>
  )
}

export const privateLocations: ResourceDescriptor<Item> = {
  key: 'private-locations',
  title: 'Private locations',
  singular: 'private location',
  description: 'Run checks inside your own network with the svc agent.',
  listPath: '/v1/private-locations?limit=100',
  itemPath: (id) => `/v1/private-locations/${id}`,
  createPath: '/v1/private-locations',
  updateMethod: 'put',
  idOf: (item) => item.id,
  nameOf: (item) => item.name,
  columns: [
    { label: 'Name', render: (item) => <strong>{item.name}</strong> },
    { label: 'Slug', render: (item) => <code>{item.slugName}</code> },
    {
      label: 'Health',
      render: (item) => (
        <StatusBadge status={item.healthy ? 'passing' : item.lastSeenAt ? 'failing' : 'no-data'} />
      ),
    },
    { label: 'Agents', render: (item) => item.agents?.length ?? 0, className: 'num' },
    { label: 'Last seen', render: (item) => formatAgo(item.lastSeenAt) },
  ],
  fields: [
    { path: 'name', label: 'Name', kind: 'text', required: true },
    { path: 'slugName', label: 'Slug (checks name it in privateLocations)', kind: 'text', required: true },
    { path: 'icon', label: 'Icon', kind: 'text' },
    { path: 'proxyUrl', label: 'Proxy URL', kind: 'text' },
  ],
  defaults: { name: '', slugName: '' },
  toDraft: (item) => ({
    name: item.name,
    slugName: item.slugName,
    icon: item.icon ?? '',
    proxyUrl: item.proxyUrl ?? '',
  }),
  toBody: (draft) => Object.fromEntries(Object.entries(draft).filter(([, value]) => value !== '')),
  detail: (item) => <PrivateLocationDetail location={item} />,
}

export const statusPages: ResourceDescriptor<Item> = {
  key: 'status-pages',
  title: 'Status pages',
  singular: 'status page',
  description: 'Public pages that show your services and incidents.',
  listPath: '/v3/status-pages?limit=100',
  itemPath: (id) => `/v3/status-pages/${id}`,
  createPath: '/v3/status-pages',
  updateMethod: 'put',
  idOf: (item) => item.id,
  nameOf: (item) => item.name,
  columns: [
    { label: 'Name', render: (item) => <strong>{item.name}</strong> },
    {
      label: 'Public page',
      render: (item) => (
        <a href={item.publicUrl ?? `/status/${item.url}`} target="_blank" rel="noreferrer">
          {item.publicUrl ?? `/status/${item.url}`}
        </a>
      ),
    },
    { label: 'Custom domain', render: (item) => str(item.customDomain) },
    {
      label: 'Services',
      render: (item) => item.cards?.reduce((sum: number, card: Item) => sum + card.services.length, 0) ?? 0,
      className: 'num',
    },
  ],
  fields: [
    { path: 'name', label: 'Name', kind: 'text', required: true },
    { path: 'url', label: 'Slug (the public address /status/<slug>)', kind: 'text', required: true },
    {
      path: 'customDomain',
      label: 'Custom domain',
      kind: 'text',
      hint: 'e.g. status.example.com, pointed at svc: that domain’s / shows this page.',
    },
    { path: 'defaultTheme', label: 'Theme', kind: 'select', options: ['AUTO', 'LIGHT', 'DARK'] },
    {
      path: 'themeColors',
      label: 'Theme colours',
      kind: 'custom',
      render: (bind) => <ThemeColorsEditor bind={bind} />,
    },
    { path: 'logo', label: 'Logo URL', kind: 'text' },
    { path: 'favicon', label: 'Favicon URL', kind: 'text' },
    { path: 'isPrivate', label: 'Private', kind: 'checkbox' },
    { path: 'description', label: 'Description', kind: 'textarea' },
    { path: 'cards', label: 'Cards', kind: 'custom', render: (bind) => <CardsEditor bind={bind} /> },
  ],
  defaults: { name: '', url: '', defaultTheme: 'AUTO', cards: [{ name: 'Services', services: [] }] },
  toDraft: (item) => ({
    // Every writable field, so a save (a PUT) keeps what the form doesn't show (dark logo, redirect, ...).
    ...Object.fromEntries(WRITABLE_PAGE_FIELDS.map((key) => [key, item[key] ?? ''])),
    cards: (item.cards ?? []).map(
      (card: Item): CardDraft => ({
        id: card.id,
        name: card.name,
        services: card.services.map((service: Item) => service.id),
      }),
    ),
  }),
  toBody: (draft: Draft) => {
    const { cards, ...rest } = draft
    const body = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== ''))
    return {
      ...body,
      cards: ((cards ?? []) as CardDraft[]).map((card) => ({
        ...(card.id ? { id: card.id } : {}),
        name: card.name,
        services: card.services.map((id) => ({ id })),
      })),
    }
  },
}

/** The fields of a status page's PUT body besides its cards. */
const WRITABLE_PAGE_FIELDS = [
  'name',
  'url',
  'description',
  'customDomain',
  'logo',
  'logoDark',
  'favicon',
  'redirectTo',
  'defaultTheme',
  'themeColors',
  'isPrivate',
  'whiteLabel',
]

export const services: ResourceDescriptor<Item> = {
  key: 'services',
  title: 'Services',
  singular: 'service',
  description: 'The components a status page shows and incidents impact.',
  listPath: '/v1/status-pages/services?limit=100',
  itemPath: (id) => `/v1/status-pages/services/${id}`,
  createPath: '/v1/status-pages/services',
  updateMethod: 'put',
  idOf: (item) => item.id,
  nameOf: (item) => item.name,
  columns: [
    { label: 'Name', render: (item) => <strong>{item.name}</strong> },
    { label: 'ID', render: (item) => <code>{item.id}</code> },
    { label: 'Checks', render: (item) => item.checkIds?.length ?? 0, className: 'num' },
  ],
  fields: [
    { path: 'name', label: 'Name', kind: 'text', required: true },
    { path: 'description', label: 'Description', kind: 'text' },
    { path: 'checkIds', label: 'Checks', kind: 'custom', render: (bind) => <ChecksPicker {...bind} /> },
  ],
  defaults: { name: '', checkIds: [] },
  toDraft: (item) => ({
    name: item.name,
    description: item.description ?? '',
    checkIds: item.checkIds ?? [],
  }),
}

const INCIDENT_FIELDS: FieldSpec[] = [
  { path: 'name', label: 'Name', kind: 'text', required: true },
  {
    path: 'severity',
    label: 'Severity',
    kind: 'select',
    options: [['', '—'], 'MINOR', 'MEDIUM', 'MAJOR', 'CRITICAL'],
  },
  {
    path: 'componentImpacts',
    label: 'Impacted services',
    kind: 'custom',
    render: (bind) => <ImpactsEditor bind={bind} />,
  },
  // The first update's fields sit at their path in the body, so the API's errors show beside them.
  {
    path: 'incidentUpdates.0.status',
    label: 'Status',
    kind: 'select',
    options: ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'],
    show: (_, creating) => creating,
  },
  {
    path: 'incidentUpdates.0.description',
    label: 'First update',
    kind: 'textarea',
    show: (_, creating) => creating,
  },
  {
    path: 'incidentUpdates.0.notifySubscribers',
    label: 'Notify subscribers',
    kind: 'checkbox',
    show: (_, creating) => creating,
  },
]

/** A new incident carries its first update; an edit changes the name, severity and impacts. */
function incidentBody(draft: Draft, creating: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: draft.name,
    componentImpacts: draft.componentImpacts ?? [],
  }
  if (draft.severity) body.severity = draft.severity
  if (creating) {
    const [first] = (draft.incidentUpdates ?? []) as Item[]
    body.incidentUpdates = [
      {
        description: first?.description,
        status: first?.status,
        notifySubscribers: first?.notifySubscribers === true,
      },
    ]
  }
  return body
}

export function incidentsFor(statusPageId: string): ResourceDescriptor<Item> {
  return {
    key: 'incidents',
    title: 'Incidents',
    live: true,
    singular: 'incident',
    description: 'Tell your users what is happening; updates can notify subscribers.',
    listPath: `/v3/status-pages/${statusPageId}/incidents?limit=100`,
    itemPath: (id) => `/v3/status-pages/${statusPageId}/incidents/${id}`,
    createPath: `/v3/status-pages/${statusPageId}/incidents`,
    updateMethod: 'put',
    idOf: (item) => item.id,
    nameOf: (item) => item.name,
    columns: [
      { label: 'Name', render: (item) => <strong>{item.name}</strong> },
      { label: 'Status', render: (item) => <span className="chip">{item.lastUpdateStatus}</span> },
      { label: 'Severity', render: (item) => str(item.severity) },
      { label: 'Started', render: (item) => formatTime(item.startedAt) },
      { label: 'Resolved', render: (item) => formatTime(item.resolvedAt) },
    ],
    fields: INCIDENT_FIELDS,
    defaults: {
      name: '',
      componentImpacts: [],
      incidentUpdates: [{ status: 'INVESTIGATING', description: '', notifySubscribers: false }],
    },
    toDraft: (item) => ({
      name: item.name,
      severity: item.severity ?? '',
      componentImpacts: (item.componentImpacts ?? []).map(
        (impact: Item): ImpactDraft => ({ componentId: impact.componentId, status: impact.status }),
      ),
    }),
    toBody: incidentBody,
    detail: (item) => <IncidentUpdates incident={item} />,
  }
}

export const apiKeys: ResourceDescriptor<Item> = {
  key: 'api-keys',
  title: 'API keys',
  singular: 'API key',
  description:
    'Keys for the API, the CLI and CI. A user key acts as you; a service key belongs to this account.',
  listPath: '/v1/api-keys?limit=100',
  itemPath: (id) => `/v1/api-keys/${id}`,
  createPath: '/v1/api-keys',
  idOf: (item) => item.id,
  nameOf: (item) => item.name,
  columns: [
    { label: 'Name', render: (item) => <strong>{item.name}</strong> },
    { label: 'Key', render: (item) => <code>{item.maskedKey}</code> },
    { label: 'Type', render: (item) => `${item.type.toLowerCase()}${item.role ? ` · ${item.role}` : ''}` },
    { label: 'Created', render: (item) => formatTime(item.created_at) },
  ],
  fields: [
    { path: 'name', label: 'Name', kind: 'text', required: true },
    {
      path: 'type',
      label: 'Type',
      kind: 'select',
      options: [
        ['USER', 'User key'],
        ['SERVICE', 'Service key (ADMIN)'],
      ],
    },
    {
      path: 'role',
      label: 'Role of a service key',
      kind: 'select',
      options: ['READ_ONLY', 'READ_WRITE', 'ADMIN'],
      show: (draft) => draft.type === 'SERVICE',
    },
  ],
  defaults: { name: '', type: 'USER', role: 'READ_ONLY' },
  toBody: (draft) => (draft.type === 'SERVICE' ? draft : { name: draft.name, type: 'USER' }),
  afterCreate: (created) => <RawKey value={created.key} what="API key" />,
}

export async function firstStatusPageId(): Promise<string | null> {
  const pages = await api.get<Item[]>('/v3/status-pages?limit=1')
  return pages[0]?.id ?? null
}
