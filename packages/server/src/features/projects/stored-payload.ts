import type { SecretBox } from '../../crypto/secret-box.ts'

/**
 * A resource's payload as its binding stores it, to tell the next deploy what changed: every hidden
 * value (an object's `value` beside `secret: true` or `locked: true`, as variables and locked headers
 * have) becomes a keyed digest. Equal values still compare equal; the store never holds the secret.
 */
export function withDigestedSecrets(box: SecretBox, payload: unknown): unknown {
  if (Array.isArray(payload)) return payload.map((item) => withDigestedSecrets(box, item))
  if (payload === null || typeof payload !== 'object') return payload
  const object = payload as Record<string, unknown>
  const hidden = (object.secret === true || object.locked === true) && typeof object.value === 'string'
  return Object.fromEntries(
    Object.entries(object).map(([key, value]) => [
      key,
      hidden && key === 'value' ? `digest:${box.digest(value as string)}` : withDigestedSecrets(box, value),
    ]),
  )
}
