import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../api.ts'
import { formatAgo, formatTime } from '../format.ts'
import { useSession } from '../session.tsx'
import { Button, Card, CopyButton, ErrorBox } from '../ui/ui.tsx'

// biome-ignore lint/suspicious/noExplicitAny: a private location as the API answers it
type Location = Record<string, any>

export function PrivateLocationDetail(props: { location: Location }) {
  return (
    <>
      <AgentsCard location={props.location} />
      <KeysCard location={props.location} />
    </>
  )
}

function AgentsCard(props: { location: Location }) {
  const { location } = props
  return (
    <Card title="Agents">
      {(location.agents ?? []).length === 0 ? (
        <p className="muted">
          No agent seen in the last 30 seconds. Start one with <code>npm run agent</code> and a key below.
        </p>
      ) : (
        <ul className="plain-list">
          {location.agents.map((agent: Record<string, string | number>) => (
            <li key={agent.id}>
              <strong>{agent.hostname}</strong>{' '}
              <span className="muted">
                v{agent.version} · {agent.runningJobs} running · started {formatTime(String(agent.startedAt))}{' '}
                · seen {formatAgo(String(agent.lastSeenAt))}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}

/** The location's agent keys: admins make a new one (shown once) and revoke old ones. */
function KeysCard(props: { location: Location }) {
  const { location } = props
  const { isAdmin } = useSession()
  const client = useQueryClient()
  const refresh = () => void client.invalidateQueries({ queryKey: ['private-locations'] })
  const create = useMutation({
    mutationFn: () => api.post<{ rawKey: string }>(`/v1/private-locations/${location.id}/keys`),
    onSuccess: refresh,
  })
  const revoke = useMutation({
    mutationFn: (keyId: string) => api.delete(`/v1/private-locations/${location.id}/keys/${keyId}`),
    onSuccess: refresh,
  })
  return (
    <Card
      title="Keys"
      actions={
        isAdmin && (
          <Button className="btn-small" onClick={() => create.mutate()}>
            New key
          </Button>
        )
      }
    >
      <ErrorBox error={create.error ?? revoke.error} />
      {create.data && (
        <div className="copy-row">
          <span className="copy-label">New key (shown once)</span>
          <code>{create.data.rawKey}</code>
          <CopyButton text={create.data.rawKey} label="Copy the new key" />
        </div>
      )}
      <ul className="plain-list">
        {(location.keys ?? []).map((key: Record<string, string>) => (
          <li key={key.id} className="key-row">
            <code>{key.maskedKey}</code>
            {isAdmin && (
              <Button
                className="btn-small"
                variant="danger"
                aria-label={`Revoke the key ${key.maskedKey}`}
                onClick={() => revoke.mutate(key.id as string)}
              >
                Revoke
              </Button>
            )}
          </li>
        ))}
      </ul>
    </Card>
  )
}
