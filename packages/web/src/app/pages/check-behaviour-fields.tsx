import { useQuery } from '@tanstack/react-query'
import type { TSchema } from 'typebox'
import {
  CheckAlertSettings,
  CheckEnvironmentVariable,
  ESCALATION_TYPES,
  INCIDENT_SEVERITIES,
  MAX_CHECK_ENVIRONMENT_VARIABLES,
  RETRY_STRATEGY_TYPES,
  RetryStrategy,
} from '../../../../core/src/checks/check-fields.ts'
import { api, listOf } from '../api.ts'
import {
  CheckboxInput,
  type Draft,
  getPath,
  NumberInput,
  SelectInput,
  setPath,
  TextInput,
} from '../ui/form-fields.tsx'
import { Button, Card, Field } from '../ui/ui.tsx'

/**
 * The fields every check type shares past the general ones: alerting, retries, the check's own
 * variables and the incident it opens. Bounds and defaults are read from core's schemas, the ones the API
 * validates with, so the form can't drift from the API.
 */

interface Bind {
  draft: Draft
  onChange(draft: Draft): void
  error: unknown
}

type Bounds = { min?: number; max?: number; fallback?: number }

/** Minimum, maximum and default of an integer property of a core schema (`a.b` walks nested objects). */
function bounds(schema: TSchema, path: string): Bounds {
  type Node = { properties?: Record<string, Node>; minimum?: number; maximum?: number; default?: number }
  let node = schema as Node
  for (const part of path.split('.')) node = node.properties?.[part] ?? {}
  return { min: node.minimum, max: node.maximum, fallback: node.default }
}

function boundsHint(b: Bounds, unit = ''): string {
  return `${b.min}–${b.max}${unit}; default ${b.fallback}${unit}.`
}

export function AlertingFields(props: { bind: Bind }) {
  const { bind } = props
  const channels = useQuery({
    queryKey: ['alert-channels', 'all'],
    queryFn: () => api.get<{ id: number; name?: string; type: string }[]>('/v1/alert-channels?limit=100'),
  })
  const useGlobal = getPath(bind.draft, 'useGlobalAlertSettings') !== false
  const escalation = String(getPath(bind.draft, 'alertSettings.escalationType') ?? 'RUN_BASED')
  const runs = bounds(CheckAlertSettings, 'runBasedEscalation.failedRunThreshold')
  const minutes = bounds(CheckAlertSettings, 'timeBasedEscalation.minutesFailingThreshold')
  const amount = bounds(CheckAlertSettings, 'reminders.amount')
  const interval = bounds(CheckAlertSettings, 'reminders.interval')
  const percentage = bounds(CheckAlertSettings, 'parallelRunFailureThreshold.percentage')
  const subscribed = (getPath(bind.draft, 'alertChannelSubscriptions') ?? []) as {
    alertChannelId: number
    activated: boolean
  }[]
  return (
    <Card title="Alerting">
      <CheckboxInput
        {...bind}
        path="useGlobalAlertSettings"
        label="Use the account's alert settings"
        draft={{ ...bind.draft, useGlobalAlertSettings: useGlobal }}
      />
      {!useGlobal && (
        <div className="form-grid">
          <SelectInput
            {...bind}
            path="alertSettings.escalationType"
            label="Alert when"
            options={ESCALATION_TYPES.map((type) => [
              type,
              type === 'RUN_BASED' ? 'A number of runs failed' : 'It failed for some minutes',
            ])}
            draft={setPath(bind.draft, 'alertSettings.escalationType', escalation)}
          />
          {escalation === 'RUN_BASED' ? (
            <NumberInput
              {...bind}
              path="alertSettings.runBasedEscalation.failedRunThreshold"
              label="Failed runs in a row"
              min={runs.min}
              max={runs.max}
              hint={boundsHint(runs)}
            />
          ) : (
            <NumberInput
              {...bind}
              path="alertSettings.timeBasedEscalation.minutesFailingThreshold"
              label="Minutes failing"
              min={minutes.min}
              max={minutes.max}
              hint={boundsHint(minutes, ' min')}
            />
          )}
          <NumberInput
            {...bind}
            path="alertSettings.reminders.amount"
            label="Reminders"
            min={amount.min}
            max={amount.max}
            hint={`How many times to remind while it fails; default ${amount.fallback}.`}
          />
          <NumberInput
            {...bind}
            path="alertSettings.reminders.interval"
            label="Minutes between reminders"
            min={interval.min}
            max={interval.max}
            hint={boundsHint(interval, ' min')}
          />
          <CheckboxInput
            {...bind}
            path="alertSettings.parallelRunFailureThreshold.enabled"
            label="In parallel runs, alert only past a share of failed locations"
          />
          <NumberInput
            {...bind}
            path="alertSettings.parallelRunFailureThreshold.percentage"
            label="Failed locations (%)"
            min={percentage.min}
            max={percentage.max}
            hint={boundsHint(percentage, '%')}
          />
        </div>
      )}
      {(channels.data ?? []).length > 0 && (
        <fieldset className="fieldset">
          <legend>Alert channels</legend>
          {(channels.data ?? []).map((channel) => (
            <label key={channel.id} className="checkbox">
              <input
                type="checkbox"
                checked={subscribed.some((entry) => entry.alertChannelId === channel.id && entry.activated)}
                onChange={(event) =>
                  bind.onChange({
                    ...bind.draft,
                    alertChannelSubscriptions: [
                      ...subscribed.filter((entry) => entry.alertChannelId !== channel.id),
                      ...(event.target.checked ? [{ alertChannelId: channel.id, activated: true }] : []),
                    ],
                  })
                }
              />
              {channel.name || `${channel.type} #${channel.id}`}
            </label>
          ))}
        </fieldset>
      )}
    </Card>
  )
}

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
      <div className="form-grid">
        <Field label="Retry strategy" name="retryStrategy.type" error={bind.error}>
          {(id, describedBy, invalid) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              value={strategy?.type ?? ''}
              onChange={(event) => chooseType(event.target.value)}
            >
              <option value="">Not set (the group's or none)</option>
              {RETRY_STRATEGY_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type.replaceAll('_', ' ').toLowerCase()}
                </option>
              ))}
            </select>
          )}
        </Field>
        {stepped && (
          <>
            <NumberInput
              {...bind}
              path="retryStrategy.baseBackoffSeconds"
              label="Seconds before a retry"
              min={backoff.min}
              max={backoff.max}
              hint={boundsHint(backoff, ' s')}
            />
            {strategy?.type !== 'SINGLE_RETRY' && (
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
                checked={((getPath(bind.draft, 'retryStrategy.onlyOn') ?? []) as string[]).includes(
                  'NETWORK_ERROR',
                )}
                onChange={(event) =>
                  bind.onChange(
                    setPath(
                      bind.draft,
                      'retryStrategy.onlyOn',
                      event.target.checked ? ['NETWORK_ERROR'] : [],
                    ),
                  )
                }
              />
              Retry on network errors only
            </label>
          </>
        )}
      </div>
    </Card>
  )
}

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
        // Rows have no id of their own; a key being typed can't be one.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <div key={index} className="form-grid variable-row">
          <TextInput
            {...bind}
            path={`environmentVariables.${index}.key`}
            label={`Name of variable ${index + 1}`}
            placeholder="API_TOKEN"
            hint={index === 0 ? `Letters, digits and _ (${keyPattern}).` : undefined}
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
              onChange={(event) => update(index, { locked: event.target.checked })}
            />
            Locked (reads masked)
          </label>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={variable.secret === true}
              onChange={(event) => update(index, { secret: event.target.checked })}
            />
            Secret (never readable again)
          </label>
          <Button
            className="btn-small"
            variant="ghost"
            aria-label={`Remove variable ${index + 1}`}
            onClick={() =>
              bind.onChange({
                ...bind.draft,
                environmentVariables: variables.filter((_, at) => at !== index),
              })
            }
          >
            Remove
          </Button>
        </div>
      ))}
    </Card>
  )
}

export function IncidentTriggerFields(props: { bind: Bind }) {
  const { bind } = props
  const services = useQuery({
    queryKey: ['services', 'all'],
    queryFn: () => listOf<{ id: string; name: string }>('/v1/status-pages/services?limit=100'),
  })
  const trigger = getPath(bind.draft, 'triggerIncident') as Record<string, unknown> | null | undefined
  const name = String(getPath(bind.draft, 'name') ?? '')
  return (
    <Card title="Incident">
      <label className="checkbox">
        <input
          type="checkbox"
          checked={Boolean(trigger)}
          onChange={(event) =>
            bind.onChange({
              ...bind.draft,
              triggerIncident: event.target.checked
                ? {
                    serviceId: services.data?.[0]?.id ?? '',
                    severity: 'MAJOR',
                    name: `${name || 'Check'} is failing`,
                    description: '',
                    notifySubscribers: false,
                  }
                : null,
            })
          }
        />
        Open an incident on a status page when this check fails
      </label>
      {trigger && (
        <div className="form-grid">
          <SelectInput
            {...bind}
            path="triggerIncident.serviceId"
            label="Service"
            options={[
              ['', 'Choose a service'],
              ...(services.data ?? []).map((service) => [service.id, service.name] as [string, string]),
            ]}
          />
          <SelectInput
            {...bind}
            path="triggerIncident.severity"
            label="Severity"
            options={[...INCIDENT_SEVERITIES]}
          />
          <TextInput {...bind} path="triggerIncident.name" label="Incident title" />
          <TextInput {...bind} path="triggerIncident.description" label="Incident description" multiline />
          <CheckboxInput
            {...bind}
            path="triggerIncident.notifySubscribers"
            label="Email the page's subscribers"
          />
        </div>
      )}
    </Card>
  )
}
