import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect } from 'react'
import { api } from '../api.ts'
import { type DraftRunResult, runUnsavedCheck, saveCheck, writableBody } from '../checks.ts'
import { CHECK_TYPE_LABELS, formatMs } from '../format.ts'
import { Link, navigate, useLocation } from '../router.tsx'
import { useSession } from '../session.tsx'
import type { Check, CheckResult, CheckType } from '../types.ts'
import { useDraft } from '../ui/edited-errors.ts'
import { CheckboxInput, type Draft, ListInput, SelectInput, TextInput } from '../ui/form-fields.tsx'
import { Button, Card, ErrorBox, Loading, PageHeader, ResultBadge } from '../ui/ui.tsx'
import { AlertingFields } from './alerting-fields.tsx'
import { AssertionsBuilder } from './assertions-builder.tsx'
import { defaultsFor, FREQUENCIES, SUB_MINUTE_TYPES } from './check-defaults.ts'
import { TypeFields } from './check-type-fields.tsx'
import { IncidentTriggerFields } from './incident-trigger-fields.tsx'
import { LocationsFieldset } from './locations-fieldset.tsx'
import { RetryFields } from './retry-fields.tsx'
import { ScriptFields } from './script-fields.tsx'
import { VariablesFields } from './variables-fields.tsx'

const ASSERTION_TYPES: CheckType[] = ['API', 'URL', 'TCP', 'DNS', 'ICMP', 'SSL']

export default function CheckFormPage(props: { checkId?: string }) {
  const { search } = useLocation()
  const existing = useQuery({
    queryKey: ['check', props.checkId],
    enabled: Boolean(props.checkId),
    queryFn: () => api.get<Check>(`/v1/checks/${props.checkId}`),
  })
  if (props.checkId && existing.isPending) return <Loading />
  if (existing.error) return <ErrorBox error={existing.error} />
  const type = (existing.data?.checkType ?? search.get('type') ?? 'URL') as CheckType
  if (!CHECK_TYPE_LABELS[type]) return <ErrorBox error={new Error(`Unknown check type ${type}`)} />
  const initial = existing.data ? writableBody(existing.data) : defaultsFor(type)
  return <CheckForm key={props.checkId ?? type} type={type} initial={initial} checkId={props.checkId} />
}

function CheckForm(props: { type: CheckType; initial: Draft; checkId?: string }) {
  const { type, checkId } = props
  const client = useQueryClient()
  const save = useMutation({
    mutationFn: () => (checkId ? api.put<Check>(`/v1/checks/${checkId}`, draft) : saveCheck(type, draft)),
    onSuccess: (saved) => {
      client.setQueryData(['check', saved.id], saved)
      void client.invalidateQueries({ queryKey: ['overview'] })
      navigate(`/checks/${saved.id}`)
    },
  })
  const { draft, setDraft, error, bind } = useDraft(props.initial, save.error)
  const runSaved = useMutation({ mutationFn: () => api.post<CheckResult>(`/v1/checks/${checkId}/trigger`) })
  // An unsaved form runs once as a test session: the definition as it stands, nothing saved.
  const runDraft = useMutation({ mutationFn: () => runUnsavedCheck(type, draft) })
  const run = checkId ? runSaved : runDraft
  useEffect(() => {
    if (save.error) document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus()
  }, [save.error])
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate()
  }
  const title = checkId ? `Edit ${String(props.initial.name)}` : `New ${CHECK_TYPE_LABELS[type]} check`
  return (
    <form onSubmit={submit} noValidate aria-label={title}>
      <PageHeader
        crumbs={<Link href="/">Checks</Link>}
        title={title}
        actions={
          <FormActions
            checkId={checkId}
            runs={type !== 'HEARTBEAT'}
            running={run.isPending}
            saving={save.isPending}
            onRun={() => run.mutate()}
          />
        }
      />
      <ErrorBox error={error} />
      {runSaved.data && checkId && <RunOutcome checkId={checkId} result={runSaved.data} />}
      {runDraft.data && !checkId && <DraftRunOutcome result={runDraft.data} />}
      <ErrorBox error={run.error} />
      <GeneralFields type={type} bind={bind} />
      <TypeFields type={type} bind={bind} />
      {ASSERTION_TYPES.includes(type) && <AssertionsBuilder type={type} {...bind} />}
      {type !== 'HEARTBEAT' && <RetryFields bind={bind} />}
      <AlertingFields bind={bind} />
      {type !== 'HEARTBEAT' && <VariablesFields bind={bind} />}
      <IncidentTriggerFields bind={bind} />
      <ScriptFields type={type} draft={draft} setDraft={setDraft} error={error} />
    </form>
  )
}

/** Cancel, Run now (not heartbeats) and, for writers, Save check. */
function FormActions(props: {
  checkId?: string
  runs: boolean
  running: boolean
  saving: boolean
  onRun(): void
}) {
  const { canWrite } = useSession()
  return (
    <>
      <Link className="btn" href={props.checkId ? `/checks/${props.checkId}` : '/'}>
        Cancel
      </Link>
      {props.runs && (
        <Button
          onClick={props.onRun}
          disabled={props.running}
          title={
            props.checkId ? 'Runs the saved check once now' : 'Runs this form once now, without saving it'
          }
        >
          {props.running ? 'Running…' : 'Run now'}
        </Button>
      )}
      {canWrite && (
        <Button type="submit" variant="primary" disabled={props.saving}>
          {props.saving ? 'Saving…' : 'Save check'}
        </Button>
      )}
    </>
  )
}

/** Name, frequency, tags, group, locations and the switches every check has. */
function GeneralFields(props: { type: CheckType; bind: ReturnType<typeof useDraft>['bind'] }) {
  const { type, bind } = props
  const groups = useQuery({
    queryKey: ['check-groups', 'all'],
    queryFn: () => api.get<{ id: number; name: string }[]>('/v1/check-groups?limit=100'),
  })
  return (
    <Card title="General">
      <div className="form-grid">
        <TextInput {...bind} path="name" label="Name" required />
        {type !== 'HEARTBEAT' && <FrequencyFields type={type} bind={bind} />}
        <ListInput {...bind} path="tags" label="Tags" />
        <SelectInput
          {...bind}
          path="groupId"
          label="Group"
          numeric
          options={[
            ['', 'No group'],
            ...(groups.data ?? []).map((group) => [group.id, group.name] as [number, string]),
          ]}
        />
      </div>
      {type !== 'HEARTBEAT' && (
        <LocationsFieldset
          draft={bind.draft}
          onChange={bind.onChange}
          hint="None chosen: the deployment's default locations."
        />
      )}
      <div className="form-grid">
        <CheckboxInput {...bind} path="activated" label="Activated (runs on schedule)" />
        <CheckboxInput {...bind} path="muted" label="Muted (no notifications)" />
        {type !== 'HEARTBEAT' && (
          <CheckboxInput {...bind} path="shouldFail" label="Should fail (inverts the verdict)" />
        )}
        {type !== 'HEARTBEAT' && (
          <CheckboxInput {...bind} path="runParallel" label="Run in all locations at once" />
        )}
      </div>
    </Card>
  )
}

/** How often the check runs; every 10, 20 or 30 s for the types that may run that often. */
function FrequencyFields(props: { type: CheckType; bind: ReturnType<typeof useDraft>['bind'] }) {
  const { type, bind } = props
  return (
    <>
      <SelectInput
        {...bind}
        path="frequency"
        label="Frequency"
        numeric
        options={[
          ...(SUB_MINUTE_TYPES.includes(type) ? [[0, 'Every 10, 20 or 30 s'] as [number, string]] : []),
          ...FREQUENCIES.map((f) => [f, f < 60 ? `Every ${f} min` : `Every ${f / 60} h`] as [number, string]),
        ]}
      />
      {bind.draft.frequency === 0 && (
        <SelectInput
          {...bind}
          path="frequencyOffset"
          label="Seconds between runs"
          numeric
          options={[
            ['', 'Choose'],
            [10, 'Every 10 s'],
            [20, 'Every 20 s'],
            [30, 'Every 30 s'],
          ]}
        />
      )}
    </>
  )
}

function DraftRunOutcome({ result }: { result: DraftRunResult }) {
  return (
    <div className="alert alert-info run-outcome" role="status">
      <ResultBadge failed={result.hasFailures} degraded={result.isDegraded} /> in{' '}
      {formatMs(result.responseTime)} from {result.runLocation} · not saved yet
    </div>
  )
}

function RunOutcome(props: { checkId: string; result: CheckResult }) {
  const { result } = props
  return (
    <div className="alert alert-info run-outcome" role="status">
      <ResultBadge failed={result.hasFailures} degraded={result.isDegraded} /> in{' '}
      {formatMs(result.responseTime)} from {result.runLocation}
      {result.error && <span className="fail-text"> · {result.error.message}</span>}{' '}
      <Link href={`/checks/${props.checkId}/results/${result.id}`}>Open the result</Link>
    </div>
  )
}
