import { useQuery } from '@tanstack/react-query'
import { INCIDENT_SEVERITIES } from '../../../../core/src/checks/check-fields.ts'
import { listOf } from '../api.ts'
import { CheckboxInput, getPath, SelectInput, TextInput } from '../ui/form-fields.tsx'
import { Card } from '../ui/ui.tsx'
import type { Bind } from './check-field-bounds.ts'

/** The Incident section of a check's form: the status page service incident it opens when failing. */

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
