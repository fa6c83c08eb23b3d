import { isoNow, type ServiceContext } from '../../context.ts'
import { sealingKeyId } from '../../crypto/secret-box.ts'
import * as repo from './encryption-keys.repo.ts'
import { VERIFIER_TEXT } from './key-verification.ts'
import { mapSealedFields } from './sealed-fields.ts'

export interface ResetOutcome {
  /** Values opened with a configured key and sealed again with the current one. */
  resealed: number
  /** Rows with values no configured key opens, now sealed empty: `table id`. */
  emptied: string[]
}

/**
 * For a lost key: every sealed value is re-sealed with the current key, and those no configured key opens
 * become empty values (their variables and headers stay, to be set again). Then the verifier names the
 * current key. With `apply` false it only counts. Run with every server stopped.
 */
export async function resetSealedValues(
  ctx: Pick<ServiceContext, 'db' | 'clock' | 'secretBox'>,
  apply: boolean,
): Promise<ResetOutcome> {
  const box = ctx.secretBox
  const outcome: ResetOutcome = { resealed: 0, emptied: [] }
  await ctx.db.transaction().execute(async (db) => {
    const tx = { ...ctx, db }
    for (const place of repo.SEALED_COLUMNS) {
      let after: string | number | undefined
      for (;;) {
        const rows = await repo.sealedRowsAfter(tx, place, after, 500)
        for (const row of rows) {
          let lost = false
          const reseal = (sealed: string) => {
            if (sealingKeyId(sealed) === box.keyId) return sealed
            try {
              return box.encrypt(box.decrypt(sealed))
            } catch {
              lost = true
              return box.encrypt('')
            }
          }
          const next = place.form === 'plain' ? reseal(row.value) : mapSealedFields(row.value, reseal)
          if (next === row.value) continue
          if (lost) outcome.emptied.push(`${place.table} ${row.id}`)
          else outcome.resealed++
          if (apply) await repo.replaceSealedValue(tx, place, row, next)
        }
        if (rows.length < 500) break
        after = rows.at(-1)?.id
      }
    }
    if (apply) await repo.replaceVerifier(tx, box.keyId, box.encrypt(VERIFIER_TEXT), isoNow(tx))
  })
  return outcome
}
