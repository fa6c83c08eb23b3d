import { DASHBOARD_SETTINGS_DEFAULTS, DASHBOARD_SETTINGS_FIELDS } from '@svc/core/dashboards'
import { Link } from '../router.tsx'
import type { Draft } from '../ui/form-fields.tsx'
import type { FieldSpec, ResourceDescriptor } from './descriptor.ts'

/**
 * Dashboards (`/v1/dashboards`): public pages of the status of the checks their tags select, at
 * /dashboards/<customUrl> and at the root of a custom domain. The fields are the API body's, by the
 * same names, so its field errors land beside them; choices, bounds and defaults come from the schemas
 * the API validates with (core's `dashboards.ts`). `keys` is left out: svc takes only an empty list.
 */

// biome-ignore lint/suspicious/noExplicitAny: a dashboard as the API answers it
type Item = Record<string, any>

/** Body fields that take null for "none": an empty input sends null. */
const NULLABLE_TEXT = ['customUrl', 'customDomain', 'logo', 'favicon', 'link', 'description', 'customCSS']

const paginated = (draft: Draft) => draft.paginate === true

const SETTINGS = DASHBOARD_SETTINGS_FIELDS as unknown as Record<
  string,
  { enum?: (string | number | null)[]; minimum?: number; maximum?: number }
>

/** A setting's allowed values (its schema's enum, without the null a nullable one adds), labelled. */
function choices(path: string, label: (value: string | number) => string): [string | number, string][] {
  return (SETTINGS[path]?.enum ?? [])
    .filter((value): value is string | number => value !== null)
    .map((value) => [value, label(value)])
}

function seconds(value: string | number): string {
  const count = Number(value)
  if (count < 60) return `${count} seconds`
  return count === 60 ? '1 minute' : `${count / 60} minutes`
}

const WIDTHS: Record<string, string> = { FULL: 'Full width', '960PX': '960 px' }

const checkbox = (path: string, label: string, show?: FieldSpec['show']): FieldSpec => ({
  path,
  label,
  kind: 'checkbox',
  show,
})

/** `fields` under the heading `section`. */
const inSection = (section: string, fields: FieldSpec[]) => fields.map((field) => ({ ...field, section }))

const FIELDS: FieldSpec[] = [
  ...inSection('Page', [
    { path: 'header', label: 'Header', kind: 'text', required: true, hint: 'Text at the top of the page.' },
    {
      path: 'customUrl',
      label: 'Slug (the public address /dashboards/<slug>)',
      kind: 'text',
      hint: 'a–z, 0–9 and -, up to 63 characters.',
    },
    {
      path: 'customDomain',
      label: 'Custom domain',
      kind: 'text',
      hint: 'e.g. dash.example.com, pointed at svc: that domain’s / shows this dashboard.',
    },
    { path: 'description', label: 'Description', kind: 'textarea' },
    { path: 'logo', label: 'Logo URL', kind: 'text' },
    { path: 'link', label: 'Logo links to', kind: 'text' },
    { path: 'favicon', label: 'Favicon URL', kind: 'text' },
    checkbox('isPrivate', 'Private (viewing needs an API key of an account member)'),
  ]),
  ...inSection('Checks', [
    {
      path: 'tags',
      label: 'Tags',
      kind: 'list',
      hint: 'Checks with these tags (their own or their group’s); none: every check. Separate with commas.',
    },
    checkbox('useTagsAndOperator', 'Only checks with every tag (else any tag)'),
    checkbox('sortByStatus', 'Failing checks first'),
    {
      path: 'refreshRate',
      label: 'Reload every',
      kind: 'select',
      numeric: true,
      options: choices('refreshRate', seconds),
    },
    checkbox('paginate', 'Show the checks a page at a time'),
    {
      path: 'paginationRate',
      label: 'Next page every',
      kind: 'select',
      numeric: true,
      options: choices('paginationRate', seconds),
      show: paginated,
    },
    {
      path: 'checksPerPage',
      label: 'Checks per page',
      kind: 'number',
      min: SETTINGS.checksPerPage?.minimum,
      max: SETTINGS.checksPerPage?.maximum,
      hint: `${SETTINGS.checksPerPage?.minimum}–${SETTINGS.checksPerPage?.maximum}.`,
      show: paginated,
    },
  ]),
  ...inSection('Display', [
    {
      path: 'width',
      label: 'Width',
      kind: 'select',
      options: choices('width', (value) => WIDTHS[value] ?? String(value)),
    },
    checkbox('showHeader', 'Show the header'),
    checkbox('showGroupNames', 'Show group names'),
    checkbox('hideTags', 'Hide tags'),
    checkbox('expandChecks', 'Expand checks'),
    checkbox('showP95', 'Show p95 response time'),
    checkbox('showP99', 'Show p99 response time'),
    checkbox('showCheckRunLinks', 'Link to check runs'),
    checkbox('enableIncidents', 'Show incidents'),
    { path: 'customCSS', label: 'Custom CSS', kind: 'textarea' },
  ]),
]

/** What a new dashboard starts with: the API's defaults, an empty input for a null. */
const DEFAULTS: Draft = {
  header: '',
  customUrl: '',
  customDomain: '',
  tags: [],
  ...Object.fromEntries(
    Object.entries(DASHBOARD_SETTINGS_DEFAULTS).map(([key, value]) => [key, value ?? '']),
  ),
}

/** The public page's address: its slug under /dashboards, else the root of its custom domain. */
export function publicDashboardUrl(item: Item): string | null {
  if (item.customUrl) return `/dashboards/${item.customUrl}`
  if (item.customDomain) return `https://${item.customDomain}/`
  return null
}

export const dashboards: ResourceDescriptor<Item> = {
  key: 'dashboards',
  title: 'Dashboards',
  singular: 'dashboard',
  description: 'Public pages of your checks’ status, chosen by tag: for a wall screen or your users.',
  listPath: '/v1/dashboards?limit=100',
  itemPath: (id) => `/v1/dashboards/${encodeURIComponent(id)}`,
  createPath: '/v1/dashboards',
  // A PUT changes the fields it sends; the form sends them all.
  updateMethod: 'put',
  idOf: (item) => item.dashboardId,
  nameOf: (item) => item.header || item.customUrl || item.customDomain || item.dashboardId,
  columns: [
    {
      label: 'Header',
      render: (item) => <strong>{item.header || <span className="muted">No header</span>}</strong>,
    },
    {
      label: 'Public page',
      render: (item) => {
        const url = publicDashboardUrl(item)
        if (!url) return <span className="muted">None: give it a slug or a domain</span>
        return (
          <a href={url} target="_blank" rel="noreferrer">
            {url}
          </a>
        )
      },
    },
    {
      label: 'Tags',
      render: (item) =>
        item.tags?.length ? (
          item.tags.map((tag: string) => (
            <span key={tag} className="chip">
              {tag}
            </span>
          ))
        ) : (
          <span className="muted">Every check</span>
        ),
    },
    { label: 'Private', render: (item) => (item.isPrivate ? 'Yes' : 'No') },
    {
      label: 'Incidents',
      render: (item) => (
        <Link
          href={`/settings/dashboard-incidents?dashboard=${item.id}`}
          aria-label={`Incidents of ${item.header || item.customUrl || item.dashboardId}`}
        >
          {item.enableIncidents ? 'Incidents' : 'Incidents (hidden)'}
        </Link>
      ),
    },
  ],
  fields: FIELDS,
  defaults: DEFAULTS,
  toDraft: (item) =>
    Object.fromEntries(
      Object.keys(DEFAULTS).map((key) => [
        key,
        item[key] ?? (NULLABLE_TEXT.includes(key) ? '' : DEFAULTS[key]),
      ]),
    ),
  toBody: (draft) =>
    Object.fromEntries(
      Object.entries(draft)
        .filter(([key, value]) => !(key === 'checksPerPage' && value === undefined))
        .map(([key, value]) => [key, NULLABLE_TEXT.includes(key) && value === '' ? null : value]),
    ),
}
