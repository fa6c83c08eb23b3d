import type { ServiceContext } from '../../context.ts'
import { listLiveRunnerNodes } from '../../runs/runner-nodes.repo.ts'
import { PRESENCE_INTERVAL_MS } from '../../runs/scheduler.ts'

/** A runner that missed three presence beats is taken for gone. */
const LIVE_WITHIN_MS = 3 * PRESENCE_INTERVAL_MS

/** The data-center locations this deployment serves (SVC_LOCATIONS) and whether a runner serves each. */
export async function listLocations(ctx: ServiceContext) {
  const nodes = await listLiveRunnerNodes(ctx, ctx.clock.now().getTime() - LIVE_WITHIN_MS)
  const connected = new Set(nodes.flatMap((node) => node.locations))
  return ctx.locations.served.map((region) => ({
    region,
    name: region,
    isDefault: ctx.locations.defaults.includes(region),
    runnerConnected: connected.has(region),
  }))
}
