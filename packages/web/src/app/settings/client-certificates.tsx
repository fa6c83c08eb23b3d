import { formatTime } from '../format.ts'
import type { DraftUpdate } from '../ui/edited-errors.ts'
import type { Draft } from '../ui/form-fields.tsx'
import { Field } from '../ui/ui.tsx'
import type { FieldSpec, ResourceDescriptor } from './descriptor.ts'

/**
 * Client certificates (`/v1/client-certificates`): what API checks of a host present for mutual TLS. The
 * key and passphrase are sent once and never read back; a certificate is replaced by deleting it and
 * uploading another (the API has no edit).
 */

// biome-ignore lint/suspicious/noExplicitAny: a certificate as the API answers it
type Item = Record<string, any>

/** A PEM pasted or read from a file; `secret` ones (the key) are not spell-checked or remembered. */
function PemField(props: {
  bind: { draft: Draft; onChange(update: DraftUpdate): void; error: unknown }
  path: string
  label: string
  hint: string
  secret?: boolean
}) {
  const { bind, path } = props
  const set = (value: string) => bind.onChange((current) => ({ ...current, [path]: value }))
  return (
    <div className="form-wide">
      <Field label={props.label} name={path} error={bind.error} hint={props.hint}>
        {(id, describedBy, invalid) => (
          <>
            <textarea
              id={id}
              name={path}
              rows={props.secret ? 4 : 6}
              style={{ fontFamily: 'var(--mono)' }}
              spellCheck={false}
              autoComplete="off"
              aria-describedby={describedBy}
              aria-invalid={invalid}
              value={String(bind.draft[path] ?? '')}
              onChange={(event) => set(event.target.value)}
            />
            <input
              type="file"
              aria-label={`${props.label}: read from a file`}
              accept=".pem,.crt,.cer,.key,text/plain"
              onChange={(event) => {
                const file = event.target.files?.[0]
                if (file) void file.text().then(set)
              }}
            />
          </>
        )}
      </Field>
    </div>
  )
}

const pem = (path: string, label: string, hint: string, secret = false): FieldSpec => ({
  path,
  label,
  kind: 'custom',
  render: (bind) => <PemField bind={bind} path={path} label={label} hint={hint} secret={secret} />,
})

export const clientCertificates: ResourceDescriptor<Item> = {
  key: 'client-certificates',
  title: 'Client certificates',
  singular: 'client certificate',
  createLabel: 'Upload a certificate',
  description:
    'API checks of a host present its certificate for mutual TLS. Keys and passphrases are sealed and never shown again.',
  listPath: '/v1/client-certificates',
  itemPath: (id) => `/v1/client-certificates/${id}`,
  createPath: '/v1/client-certificates',
  idOf: (item) => item.id,
  nameOf: (item) => item.host,
  columns: [
    { label: 'Host', render: (item) => <code>{item.host}</code> },
    { label: 'CA', render: (item) => (item.ca ? 'Own CA' : 'System CAs') },
    { label: 'Uploaded', render: (item) => formatTime(item.created_at) },
  ],
  fields: [
    {
      path: 'host',
      label: 'Host',
      kind: 'text',
      required: true,
      hint: 'api.acme.com, or a pattern such as *.acme.com (* any characters, ? one). An exact host wins over a pattern.',
    },
    pem('cert', 'Certificate (PEM)', 'With its intermediates, if any.'),
    pem(
      'key',
      'Private key (PEM)',
      'Not needed when the certificate above holds it. Never shown again.',
      true,
    ),
    {
      path: 'passphrase',
      label: 'Passphrase',
      kind: 'password',
      hint: 'Only for an encrypted key. Never shown again.',
    },
    pem('ca', 'CA certificates (PEM)', 'Optional: trusted for this host besides the system’s.'),
  ],
  defaults: { host: '', cert: '', key: '', passphrase: '', ca: '' },
  toBody: (draft) =>
    Object.fromEntries(Object.entries(draft).filter(([, value]) => value !== '' && value !== undefined)),
}
