import type { ServiceContext } from '../../context.ts'
import type { ProjectPayload } from './apply-project.ts'
import * as repo from './projects.repo.ts'

export interface DeployOptions {
  preserveResources: boolean
  scheduleOnDeploy: boolean
}

export interface DeploymentRequest {
  payload: ProjectPayload
  options: DeployOptions
}

type Sealing = Pick<ServiceContext, 'db' | 'secretBox'>

/**
 * A deployment's request as stored: sealed, as it may carry secrets (a variable's value, a check's
 * secret variables). Inside JSON as a `sealed*` field, so key rotation re-seals it with the rest.
 */
export function sealedRequest(ctx: Pick<Sealing, 'secretBox'>, request: DeploymentRequest): string {
  return sealedJson(ctx, JSON.stringify(request))
}

function sealedJson(ctx: Pick<Sealing, 'secretBox'>, json: string): string {
  return JSON.stringify({ sealedRequest: ctx.secretBox.encrypt(json) })
}

/** A stored request, sealed or (written before requests were sealed) plain. */
export function openedRequest(ctx: Pick<Sealing, 'secretBox'>, stored: string | null): DeploymentRequest {
  const parsed = JSON.parse(stored ?? '{}') as DeploymentRequest | { sealedRequest: string }
  return 'sealedRequest' in parsed ? JSON.parse(ctx.secretBox.decrypt(parsed.sealedRequest)) : parsed
}

/**
 * Seals the requests of deployments stored before requests were sealed (those waiting or running when
 * the server stopped; a finished deployment keeps none). Run at each start, after the key check: a
 * migration has no key. Answers how many it sealed.
 */
export async function sealPlainRequests(ctx: Sealing): Promise<number> {
  let sealed = 0
  for (const row of await repo.plainRequests(ctx)) {
    const plain = row.request as string
    if (await repo.replaceRequest(ctx, row.id, plain, sealedJson(ctx, plain))) sealed++
  }
  return sealed
}
