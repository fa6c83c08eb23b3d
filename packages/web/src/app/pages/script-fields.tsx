import { lazy, Suspense } from 'react'
import type { CheckType } from '../types.ts'
import type { DraftUpdate } from '../ui/edited-errors.ts'
import type { Draft } from '../ui/form-fields.tsx'
import { Card, Field, Loading } from '../ui/ui.tsx'
import { SnippetPicker } from './snippet-picker.tsx'

const ScriptEditor = lazy(() => import('../ui/script-editor.tsx'))
const PLAYWRIGHT_TYPES: CheckType[] = ['BROWSER', 'MULTI_STEP', 'AUTOMATION']

export interface Bind {
  draft: Draft
  setDraft(update: DraftUpdate): void
  error: unknown
}

/** The code a check runs: a browser check's Playwright test; an API check's setup and teardown scripts. */
export function ScriptFields(props: { type: CheckType } & Bind) {
  const { type, ...bind } = props
  if (PLAYWRIGHT_TYPES.includes(type))
    return (
      <Card title="Script">
        <ScriptField
          {...bind}
          name="script"
          label="Playwright test script"
          hint="TypeScript or JavaScript with @playwright/test."
        />
      </Card>
    )
  if (type !== 'API') return null
  return (
    <Card title="Setup and teardown scripts">
      {/* One grid, the scripts across it: a picker alone in a grid would stretch to the card's width. */}
      <div className="form-grid">
        <SnippetPicker {...snippetBind(bind)} path="setupSnippetId" label="Setup snippet" />
        <div className="form-wide">
          <ScriptField
            {...bind}
            name="localSetupScript"
            label="Setup script"
            hint="Runs before the request: change request (url, method, headers, queryParameters, body); variables are in process.env. 10 s at most."
          />
        </div>
        <SnippetPicker {...snippetBind(bind)} path="tearDownSnippetId" label="Teardown snippet" />
        <div className="form-wide">
          <ScriptField
            {...bind}
            name="localTearDownScript"
            label="Teardown script"
            hint="Runs after the response, before the assertions: change response (statusCode, headers, body). 10 s at most."
          />
        </div>
      </div>
    </Card>
  )
}

function snippetBind(bind: Bind) {
  return { draft: bind.draft, onChange: bind.setDraft, error: bind.error }
}

/** One script in the editor, with the API's error beside it; an emptied optional script is sent as null. */
export function ScriptField(props: Bind & { name: string; label: string; hint: string }) {
  const optional = props.name !== 'script'
  return (
    <Field label={props.label} name={props.name} error={props.error} hint={props.hint}>
      {(id) => (
        <Suspense fallback={<Loading label="Loading editor…" />}>
          <ScriptEditor
            id={id}
            label={props.label}
            value={String(props.draft[props.name] ?? '')}
            onChange={(value) =>
              props.setDraft((current) => ({ ...current, [props.name]: optional && !value ? null : value }))
            }
          />
        </Suspense>
      )}
    </Field>
  )
}
