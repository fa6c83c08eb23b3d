import { useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { api } from '../api.ts'
import { formatTime } from '../format.ts'
import { Link } from '../router.tsx'
import { useSession } from '../session.tsx'
import { Button, Card, Empty, ErrorBox, Loading } from '../ui/ui.tsx'

interface ErrorGroup {
  id: string
  errorType: string | null
  cleanedErrorMessage: string
  firstSeen: string
  lastSeen: string
  count: number
  locations: string[]
  archived: boolean
  sampleResultId: string | null
}

interface Analysis {
  id: string
  // PENDING (202) while it waits or runs, as the hosted API answers.
  status: 'PENDING' | 'COMPLETED' | 'FAILED'
  failureReason: string | null
  analysis: {
    summary: string
    rootCause: string
    userImpact: string
    nextSteps: string[]
    classification: string
  } | null
}

export function ErrorGroups(props: { checkId: string }) {
  const groups = useQuery({
    queryKey: ['error-groups', props.checkId],
    queryFn: () => api.get<ErrorGroup[]>(`/v1/error-groups/checks/${props.checkId}?limit=20`),
    refetchInterval: 15_000,
  })
  return (
    <Card title="Error groups">
      <ErrorBox error={groups.error} />
      {groups.isPending ? (
        <Loading />
      ) : groups.data?.length === 0 ? (
        <Empty>No errors. Failures are grouped here by their cause.</Empty>
      ) : (
        groups.data?.map((group) => <ErrorGroupRow key={group.id} checkId={props.checkId} group={group} />)
      )}
    </Card>
  )
}

function ErrorGroupRow(props: { checkId: string; group: ErrorGroup }) {
  const { group } = props
  const { canWrite } = useSession()
  const [analysisId, setAnalysisId] = useState<string | null>(null)
  const request = useMutation({
    mutationFn: () => api.post<{ id: string }>(`/v1/root-cause-analyses/error-groups/${group.id}`),
    onSuccess: (answer) => setAnalysisId(answer.id),
  })
  const analysis = useQuery({
    queryKey: ['rca', analysisId],
    enabled: analysisId !== null,
    queryFn: () => api.get<Analysis>(`/v1/root-cause-analyses/${analysisId}`),
    refetchInterval: (current) =>
      current.state.data?.status === 'COMPLETED' || current.state.data?.status === 'FAILED' ? false : 1500,
  })
  return (
    <div className="error-group">
      <div className="error-group-head">
        <div>
          <strong>{group.errorType ?? 'Error'}</strong>{' '}
          <span className="chip">{group.archived ? 'resolved' : 'open'}</span>
          <p className="error-message">{group.cleanedErrorMessage}</p>
          <p className="muted">
            {group.count} {group.count === 1 ? 'failure' : 'failures'} · {group.locations.join(', ')} · first{' '}
            {formatTime(group.firstSeen)} · last {formatTime(group.lastSeen)}
            {group.sampleResultId && (
              <>
                {' · '}
                <Link href={`/checks/${props.checkId}/results/${group.sampleResultId}`}>sample result</Link>
              </>
            )}
          </p>
        </div>
        {canWrite && (
          <Button onClick={() => request.mutate()} disabled={request.isPending || analysis.isFetching}>
            Analyze root cause
          </Button>
        )}
      </div>
      <ErrorBox error={request.error ?? analysis.error} />
      {analysis.data && <AnalysisView analysis={analysis.data} />}
    </div>
  )
}

/** A root cause analysis as it stands: done (cause, summary, impact, next steps), failed, or still going. */
function AnalysisView(props: { analysis: Analysis }) {
  const { analysis } = props
  return (
    <div className="analysis" aria-live="polite">
      {analysis.status === 'COMPLETED' && analysis.analysis ? (
        <>
          <p>
            <strong>{analysis.analysis.classification}:</strong> {analysis.analysis.rootCause}
          </p>
          <p>{analysis.analysis.summary}</p>
          <p className="muted">Impact: {analysis.analysis.userImpact}</p>
          <ul>
            {analysis.analysis.nextSteps.map((step) => (
              <li key={step}>{step}</li>
            ))}
          </ul>
        </>
      ) : analysis.status === 'FAILED' ? (
        <p className="fail-text">Analysis failed: {analysis.failureReason}</p>
      ) : (
        <p className="muted">Analyzing…</p>
      )}
    </div>
  )
}

interface Window {
  id: number
  name: string
  tags: string[]
  startsAt: string
  endsAt: string
  repeatUnit: string | null
}

export function MaintenanceForCheck(props: { tags: string[] }) {
  const windows = useQuery({
    queryKey: ['maintenance-windows'],
    queryFn: () => api.get<Window[]>('/v1/maintenance-windows?limit=100'),
  })
  const matching = (windows.data ?? []).filter((entry) => entry.tags.some((tag) => props.tags.includes(tag)))
  return (
    <Card title="Maintenance">
      <ErrorBox error={windows.error} />
      {matching.length === 0 ? (
        <p className="muted">No maintenance window matches this check's tags.</p>
      ) : (
        <ul className="plain-list">
          {matching.map((entry) => (
            <li key={entry.id}>
              <strong>{entry.name}</strong>
              <span className="muted">
                {' '}
                {formatTime(entry.startsAt)} – {formatTime(entry.endsAt)}
                {entry.repeatUnit ? ` · repeats ${entry.repeatUnit.toLowerCase()}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}

interface Notification {
  id: string
  channelType: string
  alertType: string
  title: string
  status: string
  deliveryStatus: string
  created_at: string
}

export function AlertHistory(props: { checkId: string }) {
  const notifications = useQuery({
    queryKey: ['alert-notifications', props.checkId],
    queryFn: () => api.get<Notification[]>(`/v1/alert-notifications?checkId=${props.checkId}&limit=20`),
    refetchInterval: 15_000,
  })
  return (
    <Card title="Alert history">
      <ErrorBox error={notifications.error} />
      {notifications.data?.length === 0 ? (
        <p className="muted">No alerts sent for this check.</p>
      ) : (
        <ul className="plain-list">
          {notifications.data?.map((entry) => (
            <li key={entry.id}>
              <strong>{entry.alertType.replace('ALERT_', '').toLowerCase()}</strong> via{' '}
              {entry.channelType.toLowerCase()}{' '}
              <span className="chip">{entry.deliveryStatus.toLowerCase()}</span>
              <span className="muted"> {formatTime(entry.created_at)}</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}
