import { ScriptField } from '../pages/script-fields.tsx'
import { SnippetPicker } from '../pages/snippet-picker.tsx'
import type { Draft } from '../ui/form-fields.tsx'
import type { FieldSpec } from './descriptor.ts'

/**
 * A group's setup and teardown for each of its API checks: a snippet and a script of its own for each
 * (the group's run around the check's own, a snippet before the script).
 */

const SECTION = 'Setup and teardown of its API checks'
const KEYS = ['setupSnippetId', 'localSetupScript', 'tearDownSnippetId', 'localTearDownScript'] as const

function snippetField(path: 'setupSnippetId' | 'tearDownSnippetId', label: string): FieldSpec {
  return {
    path,
    label,
    kind: 'custom',
    section: SECTION,
    render: (bind) => <SnippetPicker {...bind} path={path} label={label} />,
  }
}

function scriptField(
  name: 'localSetupScript' | 'localTearDownScript',
  label: string,
  hint: string,
): FieldSpec {
  return {
    path: name,
    label,
    kind: 'custom',
    section: SECTION,
    render: ({ draft, onChange, error }) => (
      <div className="form-wide">
        <ScriptField draft={draft} setDraft={onChange} error={error} name={name} label={label} hint={hint} />
      </div>
    ),
  }
}

export const GROUP_SCRIPT_FIELDS: FieldSpec[] = [
  snippetField('setupSnippetId', 'Setup snippet'),
  scriptField(
    'localSetupScript',
    'Setup script',
    'Runs before the request of each API check in the group, before the check’s own setup.',
  ),
  snippetField('tearDownSnippetId', 'Teardown snippet'),
  scriptField(
    'localTearDownScript',
    'Teardown script',
    'Runs after the response of each API check in the group, after the check’s own teardown.',
  ),
]

/** The group's four settings as the form holds them (none set: null). */
export function groupScriptsDraft(item: Record<string, unknown>): Draft {
  return Object.fromEntries(KEYS.map((key) => [key, item[key] ?? null]))
}

/** All four are sent, null when not set: a PUT replaces the group, so a cleared one goes. */
export function groupScriptsBody(draft: Draft): Draft {
  return Object.fromEntries(KEYS.map((key) => [key, draft[key] || null]))
}
