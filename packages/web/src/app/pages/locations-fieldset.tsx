import { useQuery } from '@tanstack/react-query'
import { api } from '../api.ts'
import type { Draft } from '../ui/form-fields.tsx'

/** A box per location the deployment offers, over a draft's `locations` (a check's or a group's). */
export function LocationsFieldset(props: { draft: Draft; onChange(draft: Draft): void; hint: string }) {
  const locations = useQuery({
    queryKey: ['locations'],
    queryFn: () => api.get<{ id?: string; region?: string; name?: string }[]>('/v1/locations'),
  })
  const locationIds = (locations.data ?? []).map((entry) => String(entry.region ?? entry.id ?? entry.name))
  if (locationIds.length === 0) return null
  const chosen = (props.draft.locations as string[] | undefined) ?? []
  return (
    <fieldset className="fieldset">
      <legend>Locations</legend>
      {locationIds.map((id) => (
        <label key={id} className="checkbox">
          <input
            type="checkbox"
            checked={chosen.includes(id)}
            onChange={(event) =>
              props.onChange({
                ...props.draft,
                locations: event.target.checked ? [...chosen, id] : chosen.filter((entry) => entry !== id),
              })
            }
          />
          {id}
        </label>
      ))}
      <p className="hint">{props.hint}</p>
    </fieldset>
  )
}
