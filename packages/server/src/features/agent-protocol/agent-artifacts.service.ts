import type { ServiceContext } from '../../context.ts'
import { conflict, HttpError, notFound } from '../../http/errors.ts'
import { openJobsOf } from '../../runs/agent-jobs.ts'
import { jobIdOf } from '../../runs/jobs.ts'
import { artifactKey } from '../artifacts/artifact-store.ts'
import { isResultStored } from '../check-results/result-lookups.service.ts'
import { findCheckById } from '../checks/check-lookups.service.ts'
import {
  findScriptRun,
  pruneScriptRuns,
  recordArtifact,
  releaseArtifactBytes,
  reserveArtifactBytes,
} from './agent-protocol.repo.ts'
import type { CallingAgent } from './agent-protocol.service.ts'

/**
 * Stores one artifact (screenshot, trace, video) of a script run the agent's location holds, under the result
 * id the run was given. Agents upload a run's artifacts before posting its outcome, so an upload is
 * taken only while the run is open for the location, as its outcome would be: a key can't write under
 * another location's runs, under results already stored (wherever they ran), or under made-up ids.
 */
export async function uploadArtifact(
  ctx: ServiceContext,
  agent: CallingAgent,
  artifact: { checkId: string; resultId: string; path: string; bytes: Buffer },
): Promise<void> {
  const { checkId, resultId, path, bytes } = artifact
  const check = await findCheckById(ctx, checkId)
  if (!check || check.account_id !== agent.location.account_id) throw notFound(`Check ${checkId} not found`)
  if (!artifactKey(checkId, resultId, path)) throw notFound(`Artifact path ${path} not allowed`)
  const run = await findScriptRun(ctx, resultId)
  const open =
    run?.check_id === checkId &&
    run.location === agent.key &&
    (await openJobsOf(ctx, agent, [{ checkId, slotKey: run.slot_key, attempt: run.attempt }])).has(
      jobIdOf({ slotKey: run.slot_key, attempt: run.attempt }),
    )
  if (!open) {
    throw notFound(
      `Result ${resultId} is not of a run open for this location: it was not given to this location, or its run is over`,
    )
  }
  // Stored while its run is still open: its agent lost the lease, posted anyway, and another holds the run.
  if (await isResultStored(ctx, resultId))
    throw conflict(`Result ${resultId} is stored: its artifacts can no longer change`)
  const store = ctx.scripts.artifacts
  // Reserved in the store every node shares before a byte is written, so uploads of the run sent at once,
  // to one node or spread over several, add up to the limit at most. A re-upload of a path reserves its
  // new size while the old one is still counted (the limit errs safe), and gives the old one back once
  // written: the run counts each path once.
  if (!(await reserveArtifactBytes(ctx, resultId, bytes.length, store.limitBytes))) {
    throw new HttpError(
      413,
      `The artifacts of result ${resultId} would exceed ${store.limitBytes} bytes, the per-run limit`,
    )
  }
  try {
    await store.put(checkId, resultId, path, bytes)
  } catch (error) {
    await releaseArtifactBytes(ctx, resultId, bytes.length)
    throw error
  }
  await recordArtifact(ctx, resultId, path, bytes.length)
}

/** Script runs given out this long ago are long over (runs last minutes, uploads are retried for two). */
const SCRIPT_RUN_KEPT_MS = 24 * 60 * 60_000

/** Forgets the result ids of agents' script runs that are long over; answers how many went. */
export function forgetOldScriptRuns(ctx: ServiceContext): Promise<number> {
  return pruneScriptRuns(ctx, ctx.clock.now().getTime() - SCRIPT_RUN_KEPT_MS)
}
