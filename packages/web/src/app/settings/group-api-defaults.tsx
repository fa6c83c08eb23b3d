import { AssertionsBuilder } from '../pages/assertions-builder.tsx'
import type { DraftUpdate } from '../ui/edited-errors.ts'
import { type Draft, getPath, TextInput } from '../ui/form-fields.tsx'
import { Button } from '../ui/ui.tsx'
import type { FieldSpec } from './descriptor.ts'

/**
 * What a group gives each of its API checks (`apiCheckDefaults`): a base URL the checks name as
 * {{GROUP_BASE_URL}}, headers and query parameters (a check's own of the same name win), basic auth
 * (when the check has none) and assertions (after the check's own).
 */

const SECTION = 'Defaults of its API checks'
const ROOT = 'apiCheckDefaults'

interface Bind {
  draft: Draft
  onChange(update: DraftUpdate): void
  error: unknown
}

interface Pair {
  key: string
  value: string
  locked?: boolean
}

/** Headers or query parameters: a name and a value a row, added and removed. */
function PairRows(props: { bind: Bind; list: 'headers' | 'queryParameters'; noun: string }) {
  const { bind, list, noun } = props
  const path = `${ROOT}.${list}`
  const rows = (getPath(bind.draft, path) ?? []) as Pair[]
  const setRows = (next: Pair[]) =>
    bind.onChange((current) => ({ ...current, [ROOT]: { ...(current[ROOT] as Draft), [list]: next } }))
  return (
    <div className="form-wide">
      {rows.map((_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place and keep their order
        <div key={index} className="form-grid">
          <TextInput {...bind} path={`${path}.${index}.key`} label={`${noun} ${index + 1} name`} />
          <TextInput {...bind} path={`${path}.${index}.value`} label={`${noun} ${index + 1} value`} />
          <div className="field">
            <Button
              className="btn-small"
              variant="ghost"
              aria-label={`Remove ${noun.toLowerCase()} ${index + 1}`}
              onClick={() => setRows(rows.filter((__, at) => at !== index))}
            >
              Remove
            </Button>
          </div>
        </div>
      ))}
      <Button className="btn-small" onClick={() => setRows([...rows, { key: '', value: '' }])}>
        Add {noun.toLowerCase()}
      </Button>
    </div>
  )
}

/** The builder the check form uses, over the group's defaults instead of a check's request. */
function DefaultAssertions(props: { bind: Bind }) {
  const { bind } = props
  const defaults = (bind.draft[ROOT] ?? {}) as Draft
  return (
    <div className="form-wide">
      <AssertionsBuilder
        type="API"
        draft={{ request: defaults }}
        onChange={(next) => bind.onChange((current) => ({ ...current, [ROOT]: next.request as Draft }))}
        error={null}
      />
    </div>
  )
}

const custom = (path: string, label: string, render: FieldSpec['render']): FieldSpec => ({
  path,
  label,
  kind: 'custom',
  section: SECTION,
  render,
})

export const GROUP_API_DEFAULT_FIELDS: FieldSpec[] = [
  {
    path: `${ROOT}.url`,
    label: 'Base URL',
    kind: 'text',
    section: SECTION,
    hint: 'Its API checks name it as {{GROUP_BASE_URL}}, e.g. {{GROUP_BASE_URL}}/customers.',
  },
  { path: `${ROOT}.basicAuth.username`, label: 'Basic auth user', kind: 'text', section: SECTION },
  { path: `${ROOT}.basicAuth.password`, label: 'Basic auth password', kind: 'password', section: SECTION },
  custom(`${ROOT}.headers`, 'Headers', (bind) => <PairRows bind={bind} list="headers" noun="Header" />),
  custom(`${ROOT}.queryParameters`, 'Query parameters', (bind) => (
    <PairRows bind={bind} list="queryParameters" noun="Query parameter" />
  )),
  custom(`${ROOT}.assertions`, 'Assertions', (bind) => <DefaultAssertions bind={bind} />),
]

/** The defaults as the form holds them: every part present. */
export function groupApiDefaultsDraft(item: Record<string, unknown>): Draft {
  const defaults = (item[ROOT] ?? {}) as Draft
  return {
    [ROOT]: {
      url: defaults.url ?? '',
      headers: defaults.headers ?? [],
      queryParameters: defaults.queryParameters ?? [],
      assertions: defaults.assertions ?? [],
      basicAuth: defaults.basicAuth ?? { username: '', password: '' },
    },
  }
}

/** Rows without a name are left out; basic auth without a user is none. */
export function groupApiDefaultsBody(draft: Draft): Draft {
  const defaults = (draft[ROOT] ?? {}) as Draft
  const named = (rows: unknown) => ((rows ?? []) as Pair[]).filter((row) => row.key.trim() !== '')
  const basicAuth = defaults.basicAuth as { username?: string; password?: string } | null | undefined
  return {
    [ROOT]: {
      url: defaults.url ?? '',
      headers: named(defaults.headers),
      queryParameters: named(defaults.queryParameters),
      assertions: defaults.assertions ?? [],
      basicAuth: basicAuth?.username
        ? { username: basicAuth.username, password: basicAuth.password ?? '' }
        : null,
    },
  }
}
