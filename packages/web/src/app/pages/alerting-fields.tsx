import { useQuery } from '@tanstack/react-query'
import { CheckAlertSettings, ESCALATION_TYPES } from '../../../../core/src/checks/check-fields.ts'
import { api } from '../api.ts'
import { CheckboxInput, getPath, NumberInput, SelectInput, setPath } from '../ui/form-fields.tsx'
import { Card } from '../ui/ui.tsx'
import { type Bind, bounds, boundsHint } from './check-field-bounds.ts'

/** The Alerting section of every check's form: the account's settings or the check's own, and its channels. */

export function AlertingFields(props: { bind: Bind }) {
  const { bind } = props
  const useGlobal = getPath(bind.draft, 'useGlobalAlertSettings') !== false
  return (
    <Card title="Alerting">
      <CheckboxInput
        {...bind}
        path="useGlobalAlertSettings"
        label="Use the account's alert settings"
        draft={{ ...bind.draft, useGlobalAlertSettings: useGlobal }}
      />
      {!useGlobal && <OwnAlertSettings bind={bind} />}
      <ChannelSubscriptions bind={bind} />
    </Card>
  )
}

/** The check's own alert settings, with the API's bounds: escalation, reminders, parallel-run threshold. */
function OwnAlertSettings(props: { bind: Bind }) {
  const { bind } = props
  const amount = bounds(CheckAlertSettings, 'reminders.amount')
  const interval = bounds(CheckAlertSettings, 'reminders.interval')
  const percentage = bounds(CheckAlertSettings, 'parallelRunFailureThreshold.percentage')
  return (
    <div className="form-grid">
      <EscalationFields bind={bind} />
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
  )
}

/** When to alert: after a number of failed runs in a row, or after some minutes failing. */
function EscalationFields(props: { bind: Bind }) {
  const { bind } = props
  const escalation = String(getPath(bind.draft, 'alertSettings.escalationType') ?? 'RUN_BASED')
  const runs = bounds(CheckAlertSettings, 'runBasedEscalation.failedRunThreshold')
  const minutes = bounds(CheckAlertSettings, 'timeBasedEscalation.minutesFailingThreshold')
  return (
    <>
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
    </>
  )
}

/** The alert channels the check alerts: a box per channel of the account. */
function ChannelSubscriptions(props: { bind: Bind }) {
  const { bind } = props
  const channels = useQuery({
    queryKey: ['alert-channels', 'all'],
    queryFn: () => api.get<{ id: number; name?: string; type: string }[]>('/v1/alert-channels?limit=100'),
  })
  const subscribed = (getPath(bind.draft, 'alertChannelSubscriptions') ?? []) as {
    alertChannelId: number
    activated: boolean
  }[]
  if ((channels.data ?? []).length === 0) return null
  return (
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
  )
}
