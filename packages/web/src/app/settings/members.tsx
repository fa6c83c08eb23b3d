import { formatTime } from '../format.ts'
import { CopyButton } from '../ui/ui.tsx'
import type { ResourceDescriptor } from './descriptor.ts'

// biome-ignore lint/suspicious/noExplicitAny: members and invitations are two shapes of one list
type Item = Record<string, any>

/** What `POST /v1/accounts/me/members` answers: the member, and the link to hand over (null if none). */
function InviteOutcome(props: { created: Item }) {
  const { member, url, emailed } = props.created
  if (!url) {
    return (
      <p>
        {member.email} has a password already and is now a member with the role <strong>{member.role}</strong>
        .
      </p>
    )
  }
  return (
    <div>
      <p>
        {emailed
          ? `The link was mailed to ${member.email}. You can also hand it over yourself:`
          : `Send ${member.email} this link (mail isn't configured, so svc sent nothing):`}
      </p>
      <div className="copy-row">
        <span className="copy-label">Set-password link</span>
        <code data-invite-link="">{url}</code>
        <CopyButton text={url} label="Copy the set-password link" />
      </div>
      <p className="hint">
        It works once, until {formatTime(props.created.expiresAt)}. They set a password with it, then sign in
        as {member.role}. Inviting the same email again makes a new link.
      </p>
    </div>
  )
}

function statusOf(item: Item): string {
  if (item.type !== 'invite') return 'Member'
  return item.status === 'EXPIRED' ? 'Invitation expired' : 'Invited'
}

export const members: ResourceDescriptor<Item> = {
  key: 'members',
  title: 'Members',
  singular: 'member',
  createLabel: 'Invite a person',
  createdTitle: 'Invitation made',
  description:
    'People in this account and their roles. Invite someone by email: they get a link to set a password.',
  listPath: '/v1/accounts/me/members?limit=100',
  itemPath: (id) => `/v1/accounts/me/members/${id}`,
  createPath: '/v1/accounts/me/members',
  updateMethod: 'patch',
  role: 'admin',
  itemFromList: true,
  idOf: (item) => item.userId ?? item.id,
  nameOf: (item) => item.name || item.email,
  columns: [
    { label: 'Name', render: (item) => <strong>{item.name || '—'}</strong> },
    { label: 'Email', render: (item) => item.email },
    { label: 'Role', render: (item) => <span className="chip">{item.role}</span> },
    {
      label: 'Status',
      render: (item) => statusOf(item),
    },
  ],
  fields: [
    { path: 'email', label: 'Email', kind: 'text', required: true, show: (_draft, creating) => creating },
    { path: 'name', label: 'Name (optional)', kind: 'text', show: (_draft, creating) => creating },
    {
      path: 'role',
      label: 'Role',
      kind: 'select',
      options: ['OWNER', 'ADMIN', 'READ_WRITE', 'READ_ONLY'],
      show: (_draft, creating) => !creating,
    },
    {
      path: 'role',
      label: 'Role',
      kind: 'select',
      options: ['ADMIN', 'READ_WRITE', 'READ_ONLY'],
      hint: 'Make someone OWNER once they have joined.',
      show: (_draft, creating) => creating,
    },
  ],
  defaults: { email: '', name: '', role: 'READ_ONLY' },
  toDraft: (item) => ({ role: item.role }),
  toBody: (draft, creating) =>
    creating
      ? { email: draft.email, role: draft.role, ...(draft.name ? { name: draft.name } : {}) }
      : { role: draft.role },
  afterCreate: (created) => <InviteOutcome created={created} />,
}
