import { Field } from './ui.tsx'

/** Inputs bound to a path in a draft object, with the API's errors for that path shown under them. */

export type Draft = Record<string, unknown>

export function getPath(draft: Draft, path: string): unknown {
  let value: unknown = draft
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

/** A copy of `draft` with `value` at `path`; a number part indexes an array (`environmentVariables.0.key`). */
export function setPath(draft: Draft, path: string, value: unknown): Draft {
  const [head, ...rest] = path.split('.') as [string, ...string[]]
  const next = rest.length === 0 ? value : setPath((draft[head] ?? {}) as Draft, rest.join('.'), value)
  if (Array.isArray(draft)) {
    const copy = [...draft]
    copy[Number(head)] = next
    return copy as unknown as Draft
  }
  return { ...draft, [head]: next }
}

export interface BoundProps {
  draft: Draft
  onChange(draft: Draft): void
  error: unknown
  path: string
  label: string
  hint?: string
}

export function TextInput(
  props: BoundProps & {
    type?: string
    required?: boolean
    placeholder?: string
    multiline?: boolean
    /** Values the browser offers as the person types (a datalist); any other text is still allowed. */
    suggestions?: string[]
  },
) {
  const value = getPath(props.draft, props.path)
  const set = (text: string) => props.onChange(setPath(props.draft, props.path, text))
  return (
    <Field label={props.label} name={props.path} error={props.error} hint={props.hint}>
      {(id, describedBy, invalid) =>
        props.multiline ? (
          <textarea
            id={id}
            rows={6}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            value={String(value ?? '')}
            onChange={(event) => set(event.target.value)}
          />
        ) : (
          <>
            <input
              id={id}
              name={props.path}
              type={props.type ?? 'text'}
              required={props.required}
              placeholder={props.placeholder}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              value={String(value ?? '')}
              onChange={(event) => set(event.target.value)}
              list={props.suggestions ? `${id}-suggestions` : undefined}
            />
            {props.suggestions && <Suggestions id={`${id}-suggestions`} values={props.suggestions} />}
          </>
        )
      }
    </Field>
  )
}

/** The datalist of a text input's suggestions. */
function Suggestions(props: { id: string; values: string[] }) {
  return (
    <datalist id={props.id}>
      {props.values.map((value) => (
        <option key={value} value={value} />
      ))}
    </datalist>
  )
}

/** The IANA time zones this browser knows (`Europe/Berlin`, ...), for a zone field's suggestions. */
export function timeZoneNames(): string[] {
  return typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
}

export function NumberInput(props: BoundProps & { min?: number; max?: number }) {
  const value = getPath(props.draft, props.path)
  return (
    <Field label={props.label} name={props.path} error={props.error} hint={props.hint}>
      {(id, describedBy, invalid) => (
        <input
          id={id}
          name={props.path}
          type="number"
          min={props.min}
          max={props.max}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          value={value === undefined || value === null ? '' : String(value)}
          onChange={(event) =>
            props.onChange(
              setPath(
                props.draft,
                props.path,
                event.target.value === '' ? undefined : Number(event.target.value),
              ),
            )
          }
        />
      )}
    </Field>
  )
}

export function SelectInput(
  props: BoundProps & { options: (string | number | [string | number, string])[]; numeric?: boolean },
) {
  const value = getPath(props.draft, props.path)
  const options = props.options.map((option) =>
    Array.isArray(option) ? option : [option, String(option)],
  ) as [string | number, string][]
  return (
    <Field label={props.label} name={props.path} error={props.error} hint={props.hint}>
      {(id, describedBy, invalid) => (
        <select
          id={id}
          name={props.path}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          value={value === undefined || value === null ? '' : String(value)}
          onChange={(event) => {
            const raw = event.target.value
            const next = raw === '' ? null : props.numeric ? Number(raw) : raw
            props.onChange(setPath(props.draft, props.path, next))
          }}
        >
          {options.map(([optionValue, label]) => (
            <option key={String(optionValue)} value={String(optionValue)}>
              {label}
            </option>
          ))}
        </select>
      )}
    </Field>
  )
}

export function CheckboxInput(props: Omit<BoundProps, 'error'>) {
  const value = getPath(props.draft, props.path) === true
  return (
    <label className="checkbox">
      <input
        type="checkbox"
        name={props.path}
        checked={value}
        onChange={(event) => props.onChange(setPath(props.draft, props.path, event.target.checked))}
      />
      {props.label}
    </label>
  )
}

/** A list of strings edited as comma-separated text. */
export function ListInput(props: BoundProps) {
  const value = getPath(props.draft, props.path)
  const text = Array.isArray(value) ? value.join(', ') : ''
  return (
    <Field
      label={props.label}
      name={props.path}
      error={props.error}
      hint={props.hint ?? 'Separate with commas.'}
    >
      {(id, describedBy, invalid) => (
        <input
          id={id}
          name={props.path}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          defaultValue={text}
          onChange={(event) =>
            props.onChange(
              setPath(
                props.draft,
                props.path,
                event.target.value
                  .split(',')
                  .map((entry) => entry.trim())
                  .filter(Boolean),
              ),
            )
          }
        />
      )}
    </Field>
  )
}
