import { isoNow, type ServiceContext } from '../../context.ts'
import { sealingKeyId } from '../../crypto/secret-box.ts'
import * as repo from './encryption-keys.repo.ts'
import { VERIFIER_TEXT } from './key-verification.ts'
import { mapSealedFields } from './sealed-fields.ts'

export interface RotationLog {
  info(message: string): void
  warn(message: string): void
  error(obj: object, message: string): void
}

export interface RotationOptions {
  log: RotationLog
  /** Rows read and re-sealed at a time. */
  batchSize?: number
  /** Pause between sweeps while previous keys are configured (values others saved under them). */
  intervalMs?: number
  /** Awaited after each batch: tests look at the API while a rotation is half done. */
  afterBatch?: () => Promise<void>
}

/** What one sweep over every sealed column found. */
export interface SweepOutcome {
  resealed: number
  /** Values not re-sealed: saved in between (the next sweep sees them) or under a key this node lacks. */
  left: number
  /** Of those, the ones under a key this node lacks. */
  unopened: number
  /** True once the verifier names the current key. */
  finished: boolean
}

/**
 * Re-seals every value sealed with a previous key with the current one, in batches, on every node that
 * has previous keys (SVC_ENCRYPTION_KEY_PREVIOUS). Each row is replaced only if it still holds what was
 * read, so nodes sweeping together re-seal a value once; the sweep that finds nothing left moves the
 * verifier to the current key, after which starts without it are refused.
 */
const SOON_MS = 1000

export function createKeyRotation(ctx: ServiceContext, options: RotationOptions) {
  const intervalMs = options.intervalMs ?? 10 * 60_000
  let timer: NodeJS.Timeout | undefined
  let running: Promise<unknown> | undefined
  let stopped = true
  let reportedFinished = false

  const tick = () => {
    if (stopped || running) return
    let delayMs = intervalMs
    running = sweep()
      .then((outcome) => {
        // Rows saved while they were read are re-read at once; values no key opens wait for a restart.
        if (!outcome.finished && outcome.left > outcome.unopened) delayMs = SOON_MS
      })
      .catch((error: unknown) => options.log.error({ err: error }, 'encryption key rotation failed'))
      .finally(() => {
        running = undefined
        if (!stopped) timer = setTimeout(tick, delayMs)
      })
  }

  async function sweep(): Promise<SweepOutcome> {
    const outcome = await sweepOnce(ctx, options)
    if (outcome.finished && outcome.left === 0 && !reportedFinished) {
      reportedFinished = true
      options.log.info(
        `encryption key rotation finished: every sealed value is under the key with fingerprint ${ctx.secretBox.keyId}; ` +
          'SVC_ENCRYPTION_KEY_PREVIOUS can now be removed from the configuration of every node',
      )
    }
    return outcome
  }

  return {
    start() {
      if (ctx.secretBox.previousKeyIds.length === 0) return
      stopped = false
      options.log.info(
        `encryption key rotation: re-sealing values under the previous keys (fingerprints ${ctx.secretBox.previousKeyIds.join(', ')}) with the key with fingerprint ${ctx.secretBox.keyId}`,
      )
      tick()
    },
    /** One sweep now (tests). */
    sweep,
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
  }
}

/**
 * Re-seals what is under other keys than the current one, column by column, then ends the rotation if nothing is left.
 * Exported because the tests run one sweep without the timer.
 */
export async function sweepOnce(
  ctx: ServiceContext,
  options: Pick<RotationOptions, 'batchSize' | 'afterBatch' | 'log'>,
): Promise<SweepOutcome> {
  const box = ctx.secretBox
  const verifier = await repo.findVerifier(ctx)
  if (verifier?.rotating_to && verifier.rotating_to !== box.keyId) {
    options.log.warn(
      `encryption key rotation: another node rotates to the key with fingerprint ${verifier.rotating_to}, not to this node's ${box.keyId}: this node re-seals nothing`,
    )
    return { resealed: 0, left: 0, unopened: 0, finished: false }
  }
  const reseal = (sealed: string) =>
    sealingKeyId(sealed) === box.keyId ? sealed : box.encrypt(box.decrypt(sealed))
  const outcome = { resealed: 0, left: 0, unopened: 0 }
  for (const place of repo.SEALED_COLUMNS) {
    let after: string | number | undefined
    for (;;) {
      const rows = await repo.sealedRowsAfter(ctx, place, after, options.batchSize ?? 100)
      for (const row of rows) {
        let next: string
        try {
          next = place.form === 'plain' ? reseal(row.value) : mapSealedFields(row.value, reseal)
        } catch {
          outcome.unopened++
          continue
        }
        if (next === row.value) continue
        if (await repo.replaceSealedValue(ctx, place, row, next)) outcome.resealed++
        else outcome.left++
      }
      await options.afterBatch?.()
      if (rows.length < (options.batchSize ?? 100)) break
      after = rows.at(-1)?.id
    }
  }
  if (outcome.unopened > 0) {
    options.log.error(
      { values: outcome.unopened },
      'encryption key rotation: some sealed values open with none of the configured keys; the rotation cannot finish',
    )
  }
  const left = outcome.left + outcome.unopened
  let finished = verifier?.key_id === box.keyId && !verifier.rotating_to
  if (!finished && left === 0 && verifier?.rotating_to === box.keyId) {
    await repo.finishRotation(ctx, box.keyId, box.encrypt(VERIFIER_TEXT), isoNow(ctx))
    finished = (await repo.findVerifier(ctx))?.key_id === box.keyId
  }
  return { resealed: outcome.resealed, left, unopened: outcome.unopened, finished }
}
