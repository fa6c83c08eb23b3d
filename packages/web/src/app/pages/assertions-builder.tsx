import { fieldErrorsFor } from '../api.ts'
import type { Assertion, CheckType } from '../types.ts'
import type { Draft } from '../ui/form-fields.tsx'
import { Button, Card } from '../ui/ui.tsx'
import { ASSERTION_SOURCES, COMPARISONS } from './check-defaults.ts'

export function AssertionsBuilder(props: {
  type: CheckType
  draft: Draft
  onChange(draft: Draft): void
  error: unknown
}) {
  const request = (props.draft.request ?? {}) as Record<string, unknown>
  const assertions = (request.assertions as Assertion[] | undefined) ?? []
  const sources = ASSERTION_SOURCES[props.type] ?? []
  const set = (next: Assertion[]) =>
    props.onChange({ ...props.draft, request: { ...request, assertions: next } })
  const update = (index: number, changes: Partial<Assertion>) =>
    set(assertions.map((entry, position) => (position === index ? { ...entry, ...changes } : entry)))
  const errors = fieldErrorsFor(props.error, 'request.assertions')
  return (
    <Card
      title="Assertions"
      actions={
        <Button
          className="btn-small"
          onClick={() =>
            set([
              ...assertions,
              { source: sources[0] ?? 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200' },
            ])
          }
        >
          Add assertion
        </Button>
      }
    >
      {assertions.length === 0 && (
        <p className="muted">
          No assertions.{' '}
          {props.type === 'URL'
            ? 'The check passes on a status below 400.'
            : 'Add one to check the response.'}
        </p>
      )}
      {assertions.map((assertion, index) => (
        <AssertionRow
          // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place and keep their order
          key={index}
          assertion={assertion}
          index={index}
          sources={sources}
          onChange={(changes) => update(index, changes)}
          onRemove={() => set(assertions.filter((_, position) => position !== index))}
        />
      ))}
      {errors.length > 0 && (
        <p className="field-error" role="alert">
          {errors.join('; ')}
        </p>
      )}
    </Card>
  )
}

/** One assertion: its source, property, comparison and target, each labelled for screen readers. */
function AssertionRow(props: {
  assertion: Assertion
  index: number
  sources: string[]
  onChange(changes: Partial<Assertion>): void
  onRemove(): void
}) {
  const { assertion, index } = props
  return (
    <fieldset className="assertion-row">
      <legend className="sr-only">Assertion {index + 1}</legend>
      <label>
        <span className="sr-only">Source</span>
        <select value={assertion.source} onChange={(event) => props.onChange({ source: event.target.value })}>
          {props.sources.map((source) => (
            <option key={source}>{source}</option>
          ))}
        </select>
      </label>
      <label>
        <span className="sr-only">Property</span>
        <input
          placeholder="Property ($.path or header)"
          value={assertion.property ?? ''}
          onChange={(event) => props.onChange({ property: event.target.value })}
        />
      </label>
      <label>
        <span className="sr-only">Comparison</span>
        <select
          value={assertion.comparison}
          onChange={(event) => props.onChange({ comparison: event.target.value })}
        >
          {COMPARISONS.map((comparison) => (
            <option key={comparison}>{comparison}</option>
          ))}
        </select>
      </label>
      <label>
        <span className="sr-only">Target</span>
        <input
          placeholder="Target"
          value={assertion.target}
          onChange={(event) => props.onChange({ target: event.target.value })}
        />
      </label>
      <Button
        className="btn-small btn-ghost"
        aria-label={`Remove assertion ${index + 1}`}
        onClick={props.onRemove}
      >
        Remove
      </Button>
    </fieldset>
  )
}
