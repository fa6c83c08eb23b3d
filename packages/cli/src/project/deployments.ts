import { type ApiClient, ApiError } from '../api-client.ts'

export type Action = 'CREATE' | 'UPDATE' | 'DELETE' | 'DETACHED' | 'UNCHANGED'

export interface DiffEntry {
  type: string
  logicalId: string
  physicalId: string | number | null
  action: Action
  changes?: string[]
}

export interface Deployment {
  id: string
  projectLogicalId: string
  kind: 'DEPLOY' | 'DELETE'
  status: 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED'
  progress: number
  result: { diff: DiffEntry[] } | null
  error: { message: string } | null
}

const ENDED = ['SUCCEEDED', 'FAILED', 'CANCELLED']

/** A deploy or delete refused because another deployment of the project runs. */
export function runningDeploymentOf(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.status !== 409) return undefined
  const id = error.body?.attributes?.deploymentId
  return typeof id === 'string' ? id : undefined
}

/**
 * Follows a deployment until it ends: its progress from the events stream, then its end from the
 * completion endpoint (which also covers a stream cut short).
 */
export async function followDeployment(
  client: ApiClient,
  deployment: Deployment,
  onProgress: (progress: number) => void,
): Promise<Deployment> {
  const base = `/v1/projects/${encodeURIComponent(deployment.projectLogicalId)}/deployments/${deployment.id}`
  if (ENDED.includes(deployment.status)) return deployment
  await streamProgress(client, `${base}/events`, onProgress).catch(() => undefined)
  for (;;) {
    const { status, data } = await client.request<Deployment>('GET', `${base}/completion`, {
      query: { maxWaitSeconds: 30 },
      accept: [408],
    })
    if (status === 200) return data
  }
}

async function streamProgress(client: ApiClient, path: string, onProgress: (progress: number) => void) {
  const response = await fetch(client.url(path), { headers: client.headers() })
  if (!response.ok || !response.body) return
  const decoder = new TextDecoder()
  let buffered = ''
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk, { stream: true })
    let end = buffered.indexOf('\n\n')
    while (end >= 0) {
      const frame = buffered.slice(0, end)
      buffered = buffered.slice(end + 2)
      const event = /^event: (.*)$/m.exec(frame)?.[1]
      const data = /^data: (.*)$/m.exec(frame)?.[1]
      if (event === 'progress' && data) onProgress((JSON.parse(data) as { progress: number }).progress)
      if (event === 'complete' || event === 'error') return
      end = buffered.indexOf('\n\n')
    }
  }
}

export async function cancelDeployment(client: ApiClient, deployment: Deployment): Promise<void> {
  const path = `/v1/projects/${encodeURIComponent(deployment.projectLogicalId)}/deployments/${deployment.id}/cancel`
  await client.request('POST', path)
}

/** The diff as lines, one per resource that changes, and a count of the unchanged. */
export function formatDiff(diff: DiffEntry[]): string {
  const changed = diff.filter((entry) => entry.action !== 'UNCHANGED')
  const lines = changed.map((entry) => {
    const changes = entry.changes?.length ? ` (${entry.changes.join(', ')})` : ''
    return `  ${entry.action.padEnd(9)} ${entry.type} ${entry.logicalId}${changes}`
  })
  const unchanged = diff.length - changed.length
  if (changed.length === 0) return `No changes (${unchanged} resources unchanged)`
  return [...lines, `  ${unchanged} unchanged`].join('\n')
}
