import { Nullable, StrictObject, Uuid } from '@svc/core'
import { type Static, Type } from 'typebox'

const MAX_PEM_LENGTH = 100_000

const Pem = (description: string) => Type.String({ minLength: 1, maxLength: MAX_PEM_LENGTH, description })

const Host = Type.String({
  minLength: 1,
  maxLength: 255,
  // A host name, or a glob over one: letters, digits, dots, dashes, `*` and `?`.
  pattern: '^[A-Za-z0-9*?]([A-Za-z0-9*?.-]*[A-Za-z0-9*?])?$',
  description:
    'The host whose API checks present this certificate: `api.acme.com`, or a glob such as `*.acme.com` ' +
    '(`*` any characters, `?` one). An exact host wins over a glob; among equals the newest wins.',
  examples: ['www.acme.com'],
})

/** The hosted product's client certificate record; the key and passphrase are never part of it. */
export const ClientCertificate = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    host: Type.String(),
    cert: Type.String({ description: 'The certificate (PEM).' }),
    ca: Nullable(Type.String({ description: 'CA certificates (PEM) trusted for the host, if given.' })),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ClientCertificate' },
)
export type ClientCertificate = Static<typeof ClientCertificate>

export const ClientCertificateBody = StrictObject({
  host: Host,
  cert: Pem('The client certificate (PEM), with its intermediates if any.'),
  key: Type.Optional(
    Pem('Its private key (PEM). Required unless `cert` holds the key too. Never returned; sealed at rest.'),
  ),
  ca: Type.Optional(Nullable(Pem('CA certificates (PEM) trusted for the host, besides the system’s.'))),
  passphrase: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 1000,
        description: 'Opens an encrypted private key. Never returned; sealed at rest.',
      }),
    ),
  ),
})
export type ClientCertificateBody = Static<typeof ClientCertificateBody>

export const ClientCertificateIdParams = StrictObject({ id: Uuid() })

export const ListClientCertificatesQuery = StrictObject({})
