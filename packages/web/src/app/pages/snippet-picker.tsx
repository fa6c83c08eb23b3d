import { useQuery } from '@tanstack/react-query'
import { listOf } from '../api.ts'
import type { Draft } from '../ui/form-fields.tsx'
import { SelectInput } from '../ui/form-fields.tsx'

export interface SnippetOption {
  id: number
  name: string
}

/** The account's snippets, for the setup and teardown pickers of API checks and groups. */
export function useSnippets() {
  return useQuery({
    queryKey: ['snippets'],
    queryFn: () => listOf<SnippetOption>('/v1/snippets?limit=100'),
  })
}

/**
 * A setup or teardown snippet (`setupSnippetId` / `tearDownSnippetId`): none, or one of the account's.
 * A snippet runs before the script of the same place, so both may be set.
 */
export function SnippetPicker(props: {
  path: 'setupSnippetId' | 'tearDownSnippetId'
  label: string
  draft: Draft
  onChange(draft: Draft): void
  error: unknown
}) {
  const snippets = useSnippets()
  const chosen = props.draft[props.path]
  const list = snippets.data ?? []
  const options: [string | number, string][] = [
    ['', 'None'],
    ...list.map((s) => [s.id, s.name] as [number, string]),
  ]
  // A snippet deleted since it was chosen still shows, so saving doesn't drop it unseen.
  if (typeof chosen === 'number' && snippets.data && !list.some((s) => s.id === chosen))
    options.push([chosen, `Snippet ${chosen} (not found)`])
  return (
    <SelectInput
      draft={props.draft}
      onChange={props.onChange}
      error={props.error}
      path={props.path}
      label={props.label}
      hint="Runs before the script below. Snippets are kept under Snippets."
      options={options}
      numeric
    />
  )
}
