import type { ServiceContext } from '../../../context.ts'
import { badRequest } from '../../../http/errors.ts'
import { MASKED_VALUE } from '../../variables/variables.schemas.ts'

/** A 400 naming the path of the body that is wrong. */
export function invalid(path: string, message: string) {
  return badRequest(`${path} ${message}`, { errors: [{ path, message }] })
}

/**
 * A write-only key as stored: sealed. Clients read it masked, so the masked value (or an omitted one)
 * keeps the stored key; with none stored there is nothing to keep.
 */
export function sealedKey(
  ctx: ServiceContext,
  path: string,
  given: string | undefined,
  previous: string | null | undefined,
): string {
  if (given !== undefined && given !== MASKED_VALUE) return ctx.secretBox.encrypt(given)
  if (previous) return previous
  throw invalid(path, 'must be the key itself: there is no stored key to keep')
}
