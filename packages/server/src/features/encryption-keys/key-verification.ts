import { isoNow, type ServiceContext } from '../../context.ts'
import {
  createSecretBox,
  encryptionKeyFile,
  keyFingerprint,
  loadEncryptionKey,
  loadOrCreateEncryptionKey,
  type SecretBox,
  sealingKeyId,
} from '../../crypto/secret-box.ts'
import * as repo from './encryption-keys.repo.ts'
import { sealedFieldsOf } from './sealed-fields.ts'

/** A start refused because the configured keys don't open the store's sealed values. */
export class EncryptionKeyError extends Error {}

export interface ConfiguredKeys {
  current: Buffer
  previous: Buffer[]
  /** Where the current key comes from, as the user set it up (`SVC_ENCRYPTION_KEY` or the key file). */
  source: string
}

type Ctx = Pick<ServiceContext, 'db' | 'clock'>

/** What the verifier seals: opening it to this text proves the key. */
export const VERIFIER_TEXT = 'svc encryption key verifier'

export interface KeySettings {
  /** SVC_ENCRYPTION_KEY, else the key file in `dataDir`. */
  configured: Buffer | undefined
  previous: Buffer[]
  dataDir: string
  /** Generate the key file when there is no key yet (servers; `svc runner` processes only read it). */
  create: boolean
}

/**
 * The secret box of a process that starts on the store: its keys found (or the key file made on a first
 * start) and checked against the store's verifier.
 */
export async function openStoreSecretBox(ctx: Ctx, settings: KeySettings): Promise<SecretBox> {
  const keyFile = encryptionKeyFile(settings.dataDir)
  let current = loadEncryptionKey(settings.configured, settings.dataDir)
  if (!current) {
    const verifier = await repo.findVerifier(ctx)
    if (verifier || !settings.create) {
      throw new EncryptionKeyError(
        `no encryption key: SVC_ENCRYPTION_KEY is unset and there is no ${keyFile}` +
          (verifier
            ? `, but this store's values are sealed with the key with fingerprint ${verifier.key_id}`
            : '') +
          '.\n  Set SVC_ENCRYPTION_KEY to the key of the servers of this store, or SVC_DATA_DIR to the directory holding their encryption.key.',
      )
    }
    current = loadOrCreateEncryptionKey(undefined, settings.dataDir)
  }
  const source = settings.configured
    ? 'SVC_ENCRYPTION_KEY'
    : `the key file ${keyFile} (generated on the first start; SVC_ENCRYPTION_KEY is unset)`
  await verifyEncryptionKeys(ctx, { current, previous: settings.previous, source })
  return createSecretBox(current, settings.previous)
}

/**
 * Refuses a start whose keys can't open the store's sealed values, naming the key the store expects by
 * fingerprint. Writes the verifier on the first start (after checking values sealed before it existed),
 * and marks a rotation begun when the store's key is one of the previous keys.
 * Exported because the tests verify keys without starting a server.
 */
export async function verifyEncryptionKeys(ctx: Ctx, keys: ConfiguredKeys): Promise<void> {
  const keyring = keyringOf(keys)
  const currentId = keyFingerprint(keys.current)
  let verifier = await repo.findVerifier(ctx)
  if (!verifier) {
    await writeFirstVerifier(ctx, keys, keyring)
    verifier = await repo.findVerifier(ctx)
    if (!verifier) throw new Error('the encryption key verifier was not written')
  }
  const storeKey = keyring.get(verifier.key_id)
  if (!storeKey || !opensCheck(storeKey, verifier.sealed_check)) {
    throw new EncryptionKeyError(mismatchMessage(keys, [verifier.key_id, verifier.rotating_to]))
  }
  if (verifier.rotating_to !== null && !keyring.has(verifier.rotating_to)) {
    throw new EncryptionKeyError(
      `a rotation to the encryption key with fingerprint ${verifier.rotating_to} is under way, and this node ` +
        `does not have that key. ${givenKeys(keys)}\n` +
        `  Set SVC_ENCRYPTION_KEY to the key with fingerprint ${verifier.rotating_to} and SVC_ENCRYPTION_KEY_PREVIOUS ` +
        `to the key with fingerprint ${verifier.key_id}, as on the nodes that started the rotation.`,
    )
  }
  if (verifier.key_id !== currentId && verifier.rotating_to !== currentId) {
    await repo.startRotation(ctx, verifier.key_id, currentId, isoNow(ctx))
  }
}

function keyringOf(keys: ConfiguredKeys): Map<string, Buffer> {
  const keyring = new Map<string, Buffer>()
  for (const key of [keys.current, ...keys.previous]) keyring.set(keyFingerprint(key), key)
  return keyring
}

function opensCheck(key: Buffer, sealedCheck: string): boolean {
  try {
    return createSecretBox(key).decrypt(sealedCheck) === VERIFIER_TEXT
  } catch {
    return false
  }
}

/**
 * A store from before the verifier may hold values sealed with another key: the verifier names the
 * configured key that opens them (a previous one starts a rotation), and none opening them refuses the start.
 */
async function writeFirstVerifier(ctx: Ctx, keys: ConfiguredKeys, keyring: Map<string, Buffer>) {
  const samples = await sampleSealedValues(ctx)
  const opener = [...keyring.entries()].find(([, key]) => {
    const box = createSecretBox(key)
    return samples.every((sealed) => {
      try {
        box.decrypt(sealed)
        return true
      } catch {
        return false
      }
    })
  })
  if (!opener) {
    const named = samples.map(sealingKeyId).filter((id) => id !== undefined)
    throw new EncryptionKeyError(mismatchMessage(keys, named.length > 0 ? named : [null]))
  }
  const [openerId, openerKey] = opener
  const currentId = keyFingerprint(keys.current)
  await repo.insertVerifierIfAbsent(ctx, {
    key_id: openerId,
    sealed_check: createSecretBox(openerKey).encrypt(VERIFIER_TEXT),
    rotating_to: openerId === currentId ? null : currentId,
    updated_at: isoNow(ctx),
  })
}

/** One sealed value of each sealed column, where there is one. */
async function sampleSealedValues(ctx: Ctx): Promise<string[]> {
  const samples: string[] = []
  for (const place of repo.SEALED_COLUMNS) {
    const [row] = await repo.sealedRowsAfter(ctx, place, undefined, 1)
    if (!row) continue
    const sealed = place.form === 'plain' ? row.value : sealedFieldsOf(row.value)[0]
    if (sealed !== undefined) samples.push(sealed)
  }
  return samples
}

function givenKeys(keys: ConfiguredKeys): string {
  const previous = keys.previous.map(keyFingerprint)
  return (
    `This node has ${keys.source} (fingerprint ${keyFingerprint(keys.current)})` +
    (previous.length > 0 ? ` and SVC_ENCRYPTION_KEY_PREVIOUS (fingerprints ${previous.join(', ')}).` : '.')
  )
}

/** `expected`: the fingerprints the store needs; null when values sealed before fingerprints don't tell. */
function mismatchMessage(keys: ConfiguredKeys, expected: (string | null)[]): string {
  const named = [...new Set(expected.filter((id) => id !== null))]
  const wanted =
    named.length > 0
      ? `the key with fingerprint ${named.join(' (and, for a rotation under way, ')}${named.length > 1 ? ')' : ''}`
      : 'the key its values were sealed with before this version (its fingerprint was not recorded)'
  return [
    `the encryption key does not open this store's locked and secret values: the store expects ${wanted}.`,
    `  ${givenKeys(keys)}`,
    '  To recover: set SVC_ENCRYPTION_KEY to the expected key (every node of a store shares one key; a',
    '  generated key is the file encryption.key in SVC_DATA_DIR of the first start). To move to a new key,',
    '  set the new one in SVC_ENCRYPTION_KEY and the expected one in SVC_ENCRYPTION_KEY_PREVIOUS.',
    '  If the expected key is lost, its values are too: `npm run encryption-reset` empties every value',
    '  sealed with a key you no longer have and sets the store to SVC_ENCRYPTION_KEY (see docs/security.md).',
  ].join('\n')
}
