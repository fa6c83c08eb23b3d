import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { FormEvent } from 'react'
import { api } from '../api.ts'
import { useSession } from '../session.tsx'
import { useDraft } from '../ui/edited-errors.ts'
import { type BoundProps, NumberInput, TextInput, timeZoneNames } from '../ui/form-fields.tsx'
import { Button, Card, ErrorBox, Loading, PageHeader } from '../ui/ui.tsx'

interface Account {
  id: string
  name: string
  settings: { timezone: string; resultRetentionDays: number; traceRetentionDays: number }
}

export function AccountSettings() {
  const account = useQuery({
    queryKey: ['account-settings'],
    queryFn: () => api.get<Account>('/v1/accounts/me'),
  })
  if (account.isPending) return <Loading />
  if (account.error || !account.data) return <ErrorBox error={account.error} />
  return <AccountForm account={account.data} />
}

function AccountForm(props: { account: Account }) {
  const { isAdmin, accountId } = useSession()
  const client = useQueryClient()
  const save = useMutation({
    mutationFn: () => api.patch<Account>('/v1/accounts/me', draft),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['account', accountId] })
      void client.invalidateQueries({ queryKey: ['account-settings'] })
    },
  })
  const { draft, error, bind } = useDraft(
    () => ({ name: props.account.name, settings: { ...props.account.settings } }),
    save.error,
  )
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate()
  }
  return (
    <>
      <PageHeader title="Account" subtitle={`Account ID ${props.account.id}`} />
      <form onSubmit={submit} aria-label="Account settings">
        <Card>
          <ErrorBox error={error} />
          {save.isSuccess && (
            <div className="alert alert-info" role="status">
              Saved.
            </div>
          )}
          <fieldset disabled={!isAdmin} className="plain-fieldset">
            <AccountFields bind={bind} />
          </fieldset>
          {isAdmin && (
            <div className="form-actions">
              <Button type="submit" variant="primary" disabled={save.isPending}>
                Save
              </Button>
            </div>
          )}
        </Card>
      </form>
    </>
  )
}

function AccountFields(props: { bind: Pick<BoundProps, 'draft' | 'onChange' | 'error'> }) {
  const { bind } = props
  return (
    <div className="form-grid">
      <TextInput {...bind} path="name" label="Name" />
      <TextInput
        {...bind}
        path="settings.timezone"
        label="Time zone"
        hint="IANA name, e.g. Europe/Berlin. Times in the dashboard and analytics ranges use it."
        suggestions={timeZoneNames()}
      />
      <NumberInput
        {...bind}
        path="settings.resultRetentionDays"
        label="Keep results (days)"
        min={1}
        max={400}
      />
      <NumberInput
        {...bind}
        path="settings.traceRetentionDays"
        label="Keep traces and artifacts (days)"
        min={1}
        max={400}
      />
    </div>
  )
}
