import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { api } from '../api.ts'
import { formatTime } from '../format.ts'
import { useSession } from '../session.tsx'
import { useEditedErrors } from '../ui/edited-errors.ts'
import { Button, Card, ErrorBox, Field } from '../ui/ui.tsx'

const STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED']

// biome-ignore lint/suspicious/noExplicitAny: incidents and updates as the API answers them
type Item = Record<string, any>

/**
 * The status of the incident's latest update. A status page's incident names it (by the updates' public
 * dates); a dashboard's lists its updates oldest first.
 */
const latestStatusOf = (incident: Item): string =>
  incident.lastUpdateStatus ?? incident.incidentUpdates?.at(-1)?.status ?? 'INVESTIGATING'

export function IncidentUpdates(props: {
  incident: Item
  /** The list the incident is read with, read again after a change (a dashboard's incidents have their own). */
  queryKey?: string
  /** Whether updates can email subscribers (a status page's can; a dashboard has none). */
  notifies?: boolean
  /** The statuses an update may have (a dashboard's incidents also have MAINTENANCE). */
  statuses?: string[]
}) {
  const { incident, queryKey = 'incidents', notifies = true, statuses = STATUSES } = props
  const { canWrite } = useSession()
  return (
    <Card title="Updates">
      <ol className="timeline">
        {[...(incident.incidentUpdates ?? [])].reverse().map((update) => (
          <UpdateItem
            key={update.id}
            incidentId={incident.id}
            update={update}
            canWrite={canWrite}
            queryKey={queryKey}
            statuses={statuses}
          />
        ))}
      </ol>
      {canWrite && (
        <PostUpdateForm incident={incident} queryKey={queryKey} notifies={notifies} statuses={statuses} />
      )}
    </Card>
  )
}

function PostUpdateForm(props: { incident: Item; queryKey: string; notifies: boolean; statuses: string[] }) {
  const { incident, queryKey, notifies } = props
  const client = useQueryClient()
  const [description, setDescription] = useState('')
  // Until one is chosen or a message begun, the status follows the latest update as the list is read
  // again: a refresh must not change it under someone writing.
  const [chosen, setChosen] = useState<string | null>(null)
  const status = chosen ?? latestStatusOf(incident)
  const write = (text: string) => {
    setChosen(status)
    setDescription(text)
  }
  const [notify, setNotify] = useState(false)
  const post = useMutation({
    mutationFn: () =>
      api.post(`/v1/incidents/${incident.id}/updates`, { description, status, notifySubscribers: notify }),
    onSuccess: async () => {
      // Cleared once the list holds the update, so the status doesn't show the one before it meanwhile.
      await client.invalidateQueries({ queryKey: [queryKey] })
      setDescription('')
      setChosen(null)
    },
  })
  const { error, edited } = useEditedErrors(post.error)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    post.mutate()
  }
  return (
    <form onSubmit={submit} aria-label="Post an update">
      <h3>Post an update</h3>
      <ErrorBox error={error} />
      <UpdateFields
        statuses={props.statuses}
        status={status}
        description={description}
        onStatus={setChosen}
        onDescription={write}
        error={error}
        edited={edited}
      />
      {notifies && (
        <label className="checkbox">
          <input type="checkbox" checked={notify} onChange={(event) => setNotify(event.target.checked)} />
          Notify subscribers
        </label>
      )}
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={post.isPending}>
          Post update
        </Button>
      </div>
    </form>
  )
}

/** One posted update, with Edit (status and message, in place) and Delete for writers. */
function UpdateItem(props: {
  incidentId: string
  update: Item
  canWrite: boolean
  queryKey: string
  statuses: string[]
}) {
  const { incidentId, update } = props
  const client = useQueryClient()
  const [editing, setEditing] = useState(false)
  const path = `/v1/incidents/${incidentId}/updates/${update.id}`
  const done = () => void client.invalidateQueries({ queryKey: [props.queryKey] })
  const remove = useMutation({ mutationFn: () => api.delete(path), onSuccess: done })
  const when = formatTime(update.publicIncidentUpdateDate ?? update.created_at)
  if (editing)
    return (
      <li>
        <EditUpdateForm
          path={path}
          update={update}
          statuses={props.statuses}
          when={when}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false)
            done()
          }}
        />
      </li>
    )
  return (
    <li>
      <span className="chip">{update.status}</span> <span className="muted">{when}</span>
      <p>{update.description}</p>
      <ErrorBox error={remove.error} />
      {props.canWrite && (
        <UpdateActions
          when={when}
          deleting={remove.isPending}
          onEdit={() => setEditing(true)}
          onDelete={() => remove.mutate()}
        />
      )}
    </li>
  )
}

/** An update's status and message edited in place, saved with a PUT. */
function EditUpdateForm(props: {
  path: string
  update: Item
  statuses: string[]
  when: string
  onCancel(): void
  onSaved(): void
}) {
  const { update } = props
  const [description, setDescription] = useState<string>(update.description ?? '')
  const [status, setStatus] = useState<string>(update.status)
  const edit = useMutation({
    mutationFn: () => api.put(props.path, { description, status }),
    onSuccess: props.onSaved,
  })
  const { error, edited } = useEditedErrors(edit.error)
  return (
    <form
      aria-label={`Edit the update of ${props.when}`}
      onSubmit={(event) => {
        event.preventDefault()
        edit.mutate()
      }}
    >
      <ErrorBox error={error} />
      <UpdateFields
        statuses={props.statuses}
        status={status}
        description={description}
        onStatus={setStatus}
        onDescription={setDescription}
        error={error}
        edited={edited}
      />
      <div className="form-actions">
        <Button onClick={props.onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={edit.isPending}>
          Save update
        </Button>
      </div>
    </form>
  )
}

/** Edit and Delete of one update (Delete asks first). */
function UpdateActions(props: { when: string; deleting: boolean; onEdit(): void; onDelete(): void }) {
  const { when } = props
  return (
    <div className="actions">
      <Button className="btn-small" aria-label={`Edit the update of ${when}`} onClick={props.onEdit}>
        Edit
      </Button>
      <Button
        className="btn-small"
        variant="danger"
        aria-label={`Delete the update of ${when}`}
        disabled={props.deleting}
        onClick={() => {
          if (confirm(`Delete the update of ${when}?`)) props.onDelete()
        }}
      >
        Delete
      </Button>
    </div>
  )
}

interface FieldProps {
  value: string
  onChange: (value: string) => void
  error: unknown
  /** Takes the field's API error away once it is edited. */
  edited: (field: string) => void
}

/**
 * An update's status and message, in posting and in editing. One grid, the message across it: a select
 * alone in a grid would stretch to the card's width.
 */
function UpdateFields(props: {
  statuses: string[]
  status: string
  description: string
  onStatus(value: string): void
  onDescription(value: string): void
  error: unknown
  edited(field: string): void
}) {
  const { error, edited } = props
  return (
    <div className="form-grid">
      <StatusField
        statuses={props.statuses}
        value={props.status}
        onChange={props.onStatus}
        error={error}
        edited={edited}
      />
      <div className="form-wide">
        <MessageField
          value={props.description}
          onChange={props.onDescription}
          error={error}
          edited={edited}
        />
      </div>
    </div>
  )
}

/** An update's status. */
function StatusField({ statuses, value, onChange, error, edited }: FieldProps & { statuses: string[] }) {
  return (
    <Field label="Status" name="status" error={error}>
      {(id, describedBy, invalid) => (
        <select
          id={id}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          value={value}
          onChange={(event) => {
            onChange(event.target.value)
            edited('status')
          }}
        >
          {statuses.map((entry) => (
            <option key={entry}>{entry}</option>
          ))}
        </select>
      )}
    </Field>
  )
}

/** An update's message. */
function MessageField({ value, onChange, error, edited }: FieldProps) {
  return (
    <Field label="Message" name="description" error={error}>
      {(id, describedBy, invalid) => (
        <textarea
          id={id}
          rows={3}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          value={value}
          onChange={(event) => {
            onChange(event.target.value)
            edited('description')
          }}
        />
      )}
    </Field>
  )
}
