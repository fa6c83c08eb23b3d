import { formatTime } from '../format.ts'
import { ScriptField } from '../pages/script-fields.tsx'
import type { ResourceDescriptor } from './descriptor.ts'

// biome-ignore lint/suspicious/noExplicitAny: a snippet as the API answers it
type Item = Record<string, any>

/** Snippets: named Node.js code that API checks and groups run as their setup or teardown. */
export const snippets: ResourceDescriptor<Item> = {
  key: 'snippets',
  title: 'Snippets',
  singular: 'snippet',
  description:
    'Code kept once and run by many checks: choose one as the setup or teardown of an API check or a group.',
  listPath: '/v1/snippets?limit=100',
  itemPath: (id) => `/v1/snippets/${id}`,
  createPath: '/v1/snippets',
  updateMethod: 'put',
  idOf: (item) => String(item.id),
  nameOf: (item) => item.name,
  columns: [
    { label: 'Name', render: (item) => <strong>{item.name}</strong> },
    {
      label: 'Lines',
      render: (item) => String(item.script ?? '').split('\n').length,
      className: 'num',
    },
    { label: 'Changed', render: (item) => formatTime(item.updated_at ?? item.created_at) },
  ],
  fields: [
    { path: 'name', label: 'Name', kind: 'text', required: true },
    {
      path: 'script',
      label: 'Script',
      kind: 'custom',
      render: ({ draft, onChange, error }) => (
        <div className="form-wide">
          <ScriptField
            draft={draft}
            setDraft={onChange}
            error={error}
            name="script"
            label="Script"
            hint="Node.js. As a setup it changes request; as a teardown, response; variables are in process.env."
          />
        </div>
      ),
    },
  ],
  defaults: { name: '', script: '' },
  toDraft: (item) => ({ name: item.name, script: item.script }),
}
