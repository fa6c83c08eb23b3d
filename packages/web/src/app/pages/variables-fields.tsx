import {
  CheckEnvironmentVariable,
  MAX_CHECK_ENVIRONMENT_VARIABLES,
} from '../../../../core/src/checks/check-fields.ts'
import { getPath, TextInput } from '../ui/form-fields.tsx'
import { Button, Card } from '../ui/ui.tsx'
import type { Bind } from './check-field-bounds.ts'

/** The Environment variables section of a check's form (not heartbeats): its own, locked or secret. */

interface Variable {
  key: string
  value: string
  locked?: boolean
  secret?: boolean
}

export function VariablesFields(props: { bind: Bind }) {
  const { bind } = props
  const variables = (getPath(bind.draft, 'environmentVariables') ?? []) as Variable[]
  const keyPattern = (CheckEnvironmentVariable.properties.key as { pattern?: string }).pattern
  const update = (index: number, change: Partial<Variable>) =>
    bind.onChange({
      ...bind.draft,
      environmentVariables: variables.map((variable, at) =>
        at === index ? { ...variable, ...change } : variable,
      ),
    })
  return (
    <Card
      title="Environment variables"
      actions={
        <Button
          className="btn-small"
          disabled={variables.length >= MAX_CHECK_ENVIRONMENT_VARIABLES}
          onClick={() =>
            bind.onChange({ ...bind.draft, environmentVariables: [...variables, { key: '', value: '' }] })
          }
        >
          Add variable
        </Button>
      }
    >
      {variables.length === 0 && (
        <p className="muted">None: the check uses the account's and its group's variables.</p>
      )}
      {variables.map((variable, index) => (
        <VariableRow
          // Rows have no id of their own; a key being typed can't be one.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          key={index}
          bind={bind}
          index={index}
          variable={variable}
          hint={index === 0 ? `Letters, digits and _ (${keyPattern}).` : undefined}
          onChange={(change) => update(index, change)}
          onRemove={() =>
            bind.onChange({ ...bind.draft, environmentVariables: variables.filter((_, at) => at !== index) })
          }
        />
      ))}
    </Card>
  )
}

function VariableRow(props: {
  bind: Bind
  index: number
  variable: Variable
  hint?: string
  onChange(change: Partial<Variable>): void
  onRemove(): void
}) {
  const { bind, index, variable } = props
  return (
    <div className="form-grid variable-row">
      <TextInput
        {...bind}
        path={`environmentVariables.${index}.key`}
        label={`Name of variable ${index + 1}`}
        placeholder="API_TOKEN"
        hint={props.hint}
      />
      <TextInput
        {...bind}
        path={`environmentVariables.${index}.value`}
        label={`Value of variable ${index + 1}`}
        type={variable.secret ? 'password' : 'text'}
      />
      <label className="checkbox">
        <input
          type="checkbox"
          checked={variable.locked === true}
          // Every row has these boxes: the name says which variable each belongs to.
          aria-label={`Locked (reads masked), variable ${index + 1}`}
          onChange={(event) => props.onChange({ locked: event.target.checked })}
        />
        Locked (reads masked)
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={variable.secret === true}
          aria-label={`Secret (never readable again), variable ${index + 1}`}
          onChange={(event) => props.onChange({ secret: event.target.checked })}
        />
        Secret (never readable again)
      </label>
      <Button
        className="btn-small"
        variant="ghost"
        aria-label={`Remove variable ${index + 1}`}
        onClick={props.onRemove}
      >
        Remove
      </Button>
    </div>
  )
}
