import type { CheckEnvironmentVariable } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import { badRequest } from '../../http/errors.ts'
import { MASKED_VALUE } from '../variables/variables.schemas.ts'

/** Variables of a check or group as stored: hidden (locked or secret) values only sealed. */
export interface StoredVariable {
  key: string
  /** Plain value, or null when `sealedValue` holds it. */
  value: string | null
  sealedValue: string | null
  locked: boolean
  secret: boolean
}

/**
 * Seals locked and secret values; a `***masked***` value sent back keeps the value stored before. A
 * variable that was secret stays secret (400 otherwise).
 */
export function sealVariables(
  ctx: ServiceContext,
  variables: CheckEnvironmentVariable[],
  previous: StoredVariable[],
): StoredVariable[] {
  const keys = variables.map((v) => v.key)
  const duplicate = keys.find((key, index) => keys.indexOf(key) !== index)
  if (duplicate)
    throw badRequest(`body.environmentVariables key ${duplicate} appears twice`, {
      errors: [{ path: 'body.environmentVariables', message: `key ${duplicate} appears twice` }],
    })
  return variables.map((variable, index) => {
    const locked = variable.locked ?? false
    const secret = variable.secret ?? false
    const before = previous.find((p) => p.key === variable.key)
    // The spec: once secret, a value can't be unlocked (account variables refuse it the same way).
    if (before?.secret && !secret) {
      const path = `body.environmentVariables.${index}.secret`
      throw badRequest(`${path} cannot be unset: a secret stays secret`, {
        errors: [{ path, message: 'a secret cannot be made non-secret' }],
      })
    }
    const plain =
      variable.value === MASKED_VALUE && before
        ? (before.value ?? ctx.secretBox.decrypt(before.sealedValue ?? ''))
        : variable.value
    const hidden = locked || secret
    return {
      key: variable.key,
      value: hidden ? null : plain,
      sealedValue: hidden ? ctx.secretBox.encrypt(plain) : null,
      locked,
      secret,
    }
  })
}

/** Variables as clients see them: hidden values masked, sealed ones never leave. */
export function publicVariables(variables: StoredVariable[]) {
  return variables.map((v) => ({
    key: v.key,
    value: v.locked || v.secret ? MASKED_VALUE : (v.value ?? ''),
    locked: v.locked,
    secret: v.secret,
  }))
}
