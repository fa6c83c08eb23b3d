import { createPrivateKey, randomUUID } from 'node:crypto'
import { createSecureContext } from 'node:tls'
import { type ClientCertificateMaterial, hostMatchesPattern, isExactHostPattern } from '@svc/core'
import type { ClientCertificatesTable } from '@svc/db'
import type { Selectable } from 'kysely'
import { isoNow, type ServiceContext } from '../../context.ts'
import { badRequest, notFound } from '../../http/errors.ts'
import * as repo from './client-certificates.repo.ts'
import type { ClientCertificate, ClientCertificateBody } from './client-certificates.schemas.ts'

/**
 * Client certificates of an account: API checks whose host matches one present it in their TLS handshake
 * (mTLS). The private key and its passphrase are sealed at rest and never answered.
 */

type Row = Selectable<ClientCertificatesTable>

interface Secrets {
  sealedKey: string
  sealedPassphrase: string | null
}

function toCertificate(row: Row): ClientCertificate {
  return { id: row.id, host: row.host, cert: row.cert, ca: row.ca, created_at: row.created_at }
}

const PRIVATE_KEY_BLOCK = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----\s*/g

/** The certificate and key apart: a key given inside `cert` is moved out, so that it is never answered. */
function separateKey(input: ClientCertificateBody): { cert: string; key: string } {
  const embedded = input.cert.match(PRIVATE_KEY_BLOCK)
  const cert = input.cert.replace(PRIVATE_KEY_BLOCK, '').trim()
  const key = input.key ?? embedded?.join('\n')
  if (!key)
    throw badRequest('key is required: the private key (PEM) of the certificate, unless cert holds it')
  if (!cert) throw badRequest('cert holds no certificate')
  return { cert: `${cert}\n`, key }
}

/** What Node's TLS makes of the material: a certificate that doesn't parse or a key that doesn't open is a 400. */
function assertUsable(material: Omit<ClientCertificateMaterial, 'host'>): void {
  assertKeyOpens(material.key, material.passphrase)
  try {
    createSecureContext({
      cert: material.cert,
      key: material.key,
      ...(material.passphrase ? { passphrase: material.passphrase } : {}),
      ...(material.ca ? { ca: material.ca } : {}),
    })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    // OpenSSL's own words name what is wrong (a bad PEM, a key that doesn't match, a wrong passphrase).
    throw badRequest(`The certificate, key, passphrase and CA can't be used together: ${reason}`)
  }
}

/**
 * A wrong passphrase is said as such: OpenSSL's own message for it varies with the bytes the wrong
 * passphrase decrypts to ("bad decrypt", or "unsupported" when they happen to pass the padding check).
 */
function assertKeyOpens(key: string, passphrase: string | null | undefined): void {
  try {
    createPrivateKey({ key, ...(passphrase ? { passphrase } : {}) })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    // The field's own error too, so a form shows it beside the passphrase or the key.
    if (/ENCRYPTED/.test(key)) {
      const message = `doesn't open the key${passphrase ? '' : ' (none was given)'}: ${reason}`
      throw badRequest(`The passphrase ${message}`, { errors: [{ path: 'body.passphrase', message }] })
    }
    const message = `can't be read: ${reason}`
    throw badRequest(`The key ${message}`, { errors: [{ path: 'body.key', message }] })
  }
}

export async function createCertificate(
  ctx: ServiceContext,
  accountId: string,
  input: ClientCertificateBody,
): Promise<ClientCertificate> {
  const { cert, key } = separateKey(input)
  const passphrase = input.passphrase || null
  const ca = input.ca || null
  assertUsable({ cert, key, passphrase, ca })
  const secrets: Secrets = {
    sealedKey: ctx.secretBox.encrypt(key),
    sealedPassphrase: passphrase === null ? null : ctx.secretBox.encrypt(passphrase),
  }
  const row = await repo.insertCertificate(ctx, {
    id: randomUUID(),
    account_id: accountId,
    host: input.host.toLowerCase(),
    cert,
    ca,
    secrets: JSON.stringify(secrets),
    created_at: isoNow(ctx),
  })
  return toCertificate(row)
}

export async function getCertificate(ctx: ServiceContext, accountId: string, id: string) {
  const row = await repo.findCertificate(ctx, accountId, id)
  if (!row) throw notFound(`Client certificate ${id} not found`)
  return toCertificate(row)
}

export async function listCertificates(ctx: ServiceContext, accountId: string) {
  return (await repo.listCertificates(ctx, accountId)).map(toCertificate)
}

export async function deleteCertificate(ctx: ServiceContext, accountId: string, id: string): Promise<void> {
  if (!(await repo.deleteCertificate(ctx, accountId, id)))
    throw notFound(`Client certificate ${id} not found`)
}

/**
 * The certificate an API check of `accountId` presents to `hostname`, opened: the newest whose host names it
 * exactly, else the newest whose glob matches it; null when none does.
 */
export async function certificateForHost(
  ctx: ServiceContext,
  accountId: string,
  hostname: string,
): Promise<ClientCertificateMaterial | null> {
  const matching = (await repo.listCertificates(ctx, accountId)).filter((row) =>
    hostMatchesPattern(row.host, hostname),
  )
  const chosen = matching.find((row) => isExactHostPattern(row.host)) ?? matching[0]
  if (!chosen) return null
  const secrets = JSON.parse(chosen.secrets) as Secrets
  return {
    host: chosen.host,
    cert: chosen.cert,
    key: ctx.secretBox.decrypt(secrets.sealedKey),
    passphrase: secrets.sealedPassphrase ? ctx.secretBox.decrypt(secrets.sealedPassphrase) : null,
    ca: chosen.ca,
  }
}
