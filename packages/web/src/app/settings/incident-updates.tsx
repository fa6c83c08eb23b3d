import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../api.ts'
import { formatTime } from '../format.ts'
import { useSession } from '../session.tsx'
import { Button, Card, ErrorBox, Field } from '../ui/ui.tsx'

const STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED']

// biome-ignore lint/suspicious/noExplicitAny: an incident as the API answers it
export function IncidentUpdates(props: { incident: Record<string, any> }) {
  const { incident } = props
  const { canWrite } = useSession()
  const client = useQueryClient()
  const [description, setDescription] = useState('')
  const [status, setStatus] = useState<string>(incident.lastUpdateStatus ?? 'INVESTIGATING')
  const [notify, setNotify] = useState(false)
  const post = useMutation({
    mutationFn: () =>
      api.post(`/v1/incidents/${incident.id}/updates`, { description, status, notifySubscribers: notify }),
    onSuccess: () => {
      setDescription('')
      void client.invalidateQueries({ queryKey: ['incidents'] })
    },
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    post.mutate()
  }
  return (
    <Card title="Updates">
      <ol className="timeline">
        {[...(incident.incidentUpdates ?? [])].reverse().map((update) => (
          <li key={update.id}>
            <span className="chip">{update.status}</span>{' '}
            <span className="muted">{formatTime(update.publicIncidentUpdateDate ?? update.created_at)}</span>
            <p>{update.description}</p>
          </li>
        ))}
      </ol>
      {canWrite && (
        <form onSubmit={submit} aria-label="Post an update">
          <h3>Post an update</h3>
          <ErrorBox error={post.error} />
          <div className="form-grid">
            <Field label="Status" name="status" error={post.error}>
              {(id) => (
                <select id={id} value={status} onChange={(event) => setStatus(event.target.value)}>
                  {STATUSES.map((entry) => (
                    <option key={entry}>{entry}</option>
                  ))}
                </select>
              )}
            </Field>
          </div>
          <Field label="Message" name="description" error={post.error}>
            {(id) => (
              <textarea
                id={id}
                rows={3}
                value={description}
                onChange={(event) => setDescription(event.target.value)}
              />
            )}
          </Field>
          <label className="checkbox">
            <input type="checkbox" checked={notify} onChange={(event) => setNotify(event.target.checked)} />
            Notify subscribers
          </label>
          <div className="form-actions">
            <Button type="submit" variant="primary" disabled={post.isPending}>
              Post update
            </Button>
          </div>
        </form>
      )}
    </Card>
  )
}
