import { RETRY_STRATEGY_TYPES, RetryStrategy } from '../../../../core/src/checks/check-fields.ts'
import { CheckboxInput, getPath, NumberInput, setPath } from '../ui/form-fields.tsx'
import { Card, Field } from '../ui/ui.tsx'
import { type Bind, bounds, boundsHint } from './check-field-bounds.ts'

/** The Retries section of a check's form (not heartbeats): strategy, backoff and limits. */

export function RetryFields(props: { bind: Bind }) {
  const { bind } = props
  const strategy = getPath(bind.draft, 'retryStrategy') as { type?: string } | null | undefined
  const backoff = bounds(RetryStrategy, 'baseBackoffSeconds')
  const retries = bounds(RetryStrategy, 'maxRetries')
  const duration = bounds(RetryStrategy, 'maxDurationSeconds')
  const chooseType = (type: string) =>
    bind.onChange({
      ...bind.draft,
      retryStrategy: type
        ? {
            ...(strategy ?? {}),
            type,
            baseBackoffSeconds: getPath(bind.draft, 'retryStrategy.baseBackoffSeconds') ?? backoff.fallback,
            maxRetries: getPath(bind.draft, 'retryStrategy.maxRetries') ?? retries.fallback,
            maxDurationSeconds: getPath(bind.draft, 'retryStrategy.maxDurationSeconds') ?? duration.fallback,
            sameRegion: getPath(bind.draft, 'retryStrategy.sameRegion') ?? true,
          }
        : null,
    })
  const stepped = strategy?.type && strategy.type !== 'NO_RETRIES'
  return (
    <Card title="Retries">
      {/* Not retrying, the strategy is alone in the grid: it keeps one column's width. */}
      <div className="form-grid form-grid-fill">
        <Field
          label="Retry strategy"
          name="retryStrategy.type"
          error={bind.error}
          hint={strategy?.type ? undefined : "Not set: the group's strategy, or none."}
        >
          {(id, describedBy, invalid) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              value={strategy?.type ?? ''}
              onChange={(event) => chooseType(event.target.value)}
            >
              {/* Short, to fit the column: the hint says what it means. */}
              <option value="">Not set</option>
              {RETRY_STRATEGY_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type.replaceAll('_', ' ').toLowerCase()}
                </option>
              ))}
            </select>
          )}
        </Field>
        {stepped && <RetryLimits bind={bind} type={strategy?.type} />}
      </div>
    </Card>
  )
}

/** A retrying strategy's backoff and limits, and where and on what it retries. */
function RetryLimits(props: { bind: Bind; type: string | undefined }) {
  const { bind } = props
  const backoff = bounds(RetryStrategy, 'baseBackoffSeconds')
  const retries = bounds(RetryStrategy, 'maxRetries')
  const duration = bounds(RetryStrategy, 'maxDurationSeconds')
  const networkOnly = ((getPath(bind.draft, 'retryStrategy.onlyOn') ?? []) as string[]).includes(
    'NETWORK_ERROR',
  )
  return (
    <>
      <NumberInput
        {...bind}
        path="retryStrategy.baseBackoffSeconds"
        label="Seconds before a retry"
        min={backoff.min}
        max={backoff.max}
        hint={boundsHint(backoff, ' s')}
      />
      {props.type !== 'SINGLE_RETRY' && (
        <NumberInput
          {...bind}
          path="retryStrategy.maxRetries"
          label="Retries at most"
          min={retries.min}
          max={retries.max}
          hint={boundsHint(retries)}
        />
      )}
      <NumberInput
        {...bind}
        path="retryStrategy.maxDurationSeconds"
        label="Seconds of retrying at most"
        min={duration.min}
        max={duration.max}
        hint={boundsHint(duration, ' s')}
      />
      <CheckboxInput {...bind} path="retryStrategy.sameRegion" label="Retry in the same location" />
      <label className="checkbox">
        <input
          type="checkbox"
          checked={networkOnly}
          onChange={(event) =>
            bind.onChange(
              setPath(bind.draft, 'retryStrategy.onlyOn', event.target.checked ? ['NETWORK_ERROR'] : []),
            )
          }
        />
        Retry on network errors only
      </label>
    </>
  )
}
