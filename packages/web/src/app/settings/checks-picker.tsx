import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { api, fieldErrorsFor, query } from '../api.ts'
import { CHECK_TYPE_LABELS } from '../format.ts'
import type { Overview } from '../types.ts'
import type { Draft } from '../ui/form-fields.tsx'
import { FieldError } from '../ui/ui.tsx'

const SHOWN_MATCHES = 20

/**
 * A service's checks, picked by name from the account's checks rather than typed as IDs. The server
 * searches (an account may hold 1,000 checks); the chosen ones stay listed above the matches.
 */
export function ChecksPicker(props: { draft: Draft; onChange(draft: Draft): void; error: unknown }) {
  const chosen = (props.draft.checkIds ?? []) as string[]
  const [search, setSearch] = useState('')
  const id = useId()
  const matches = useQuery({
    queryKey: ['checks-picker', search],
    queryFn: () => api.get<Overview>(`/v1/dashboard/overview${query({ q: search, limit: SHOWN_MATCHES })}`),
    placeholderData: keepPreviousData,
  })
  const names = useChosenNames(chosen)
  const errors = fieldErrorsFor(props.error, 'checkIds')
  const set = (ids: string[]) => props.onChange({ ...props.draft, checkIds: ids })
  const unchosen = (matches.data?.checks ?? []).filter((check) => !chosen.includes(check.id))
  return (
    <fieldset
      className="fieldset form-wide checks-picker"
      aria-describedby={errors.length ? `${id}-error` : undefined}
    >
      <legend>Checks</legend>
      <p className="hint">The checks whose results this service's status follows.</p>
      {chosen.map((checkId) => (
        <label key={checkId} className="checkbox">
          <input type="checkbox" checked onChange={() => set(chosen.filter((entry) => entry !== checkId))} />
          {names.get(checkId) ?? checkId}
        </label>
      ))}
      <label className="checks-picker-search">
        <span className="sr-only">Find a check by name</span>
        <input
          type="search"
          placeholder="Find a check by name"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
      </label>
      {unchosen.map((check) => (
        <label key={check.id} className="checkbox">
          <input type="checkbox" checked={false} onChange={() => set([...chosen, check.id])} />
          {check.name}
          <span className="muted">{CHECK_TYPE_LABELS[check.checkType] ?? check.checkType}</span>
        </label>
      ))}
      {matches.data && unchosen.length === 0 && <p className="hint">No other check matches.</p>}
      <FieldError id={`${id}-error`} name="checkIds" errors={errors} />
    </fieldset>
  )
}

/** The names of the chosen checks, read one by one (a service holds a handful). */
function useChosenNames(ids: string[]): Map<string, string> {
  const checks = useQueries({
    queries: ids.map((checkId) => ({
      queryKey: ['checks-picker', 'name', checkId],
      queryFn: () => api.get<{ id: string; name: string }>(`/v1/checks/${checkId}`),
      staleTime: 60_000,
      retry: false,
    })),
  })
  return new Map(checks.flatMap((check) => (check.data ? [[check.data.id, check.data.name]] : [])))
}
