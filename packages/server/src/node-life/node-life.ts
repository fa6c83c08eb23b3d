import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { ServiceContext } from '../context.ts'
import { deleteLife, insertLife, otherLivesOfNode, renewLife } from './node-lives.repo.ts'

/**
 * How often a life says it is alive, and how long after its last word it counts as dead. The wait only
 * matters for a node's life on another machine (one moved with its SVC_NODE_ID): on this machine a dead
 * process is known at once. So the beat is slow, to cost nothing at idle.
 */
export const LIFE_HEARTBEAT_MS = 20_000
/** Exported because the tests move the clock past it. */
export const LIFE_TTL_MS = 60_000

/** The end a life that stopped gives itself: over, whether its process still runs or not. */
const ENDED = 0

export interface NodeLifeOptions {
  /** The node this process is a life of (SVC_NODE_ID, else the id kept in the data directory). */
  nodeId: string
  /** Takes back the leases a dead life of this node held (they would otherwise wait out their time). */
  takeBack(lifeId: string): Promise<void>
  /** This life's record was ended by another process: it was taken for dead, and must stop working. */
  lost(): void
  log: { error(details: object, message: string): void }
  /** Whether a process of this machine runs; injected by tests. */
  isRunning?: (pid: number) => boolean
}

export interface NodeLife {
  /** Names this life's leases: no other life, before or after, has it. */
  readonly id: string
  /** Says alive and takes back dead lives' leases every LIFE_HEARTBEAT_MS. */
  start(): void
  /** Ends this life at once, so that the node's next life takes back what it still holds without waiting. */
  stop(): Promise<void>
}

/**
 * Registers this process as a life of its node and, first thing, takes back the leases of the node's
 * lives that are dead: a process of this machine that no longer runs (a crash: no waiting at all), or a
 * life of another machine that said nothing for LIFE_TTL_MS. Only this node's own lives are looked at, never another
 * node's: their leases run out as before.
 */
export async function beginNodeLife(ctx: ServiceContext, options: NodeLifeOptions): Promise<NodeLife> {
  const isRunning = options.isRunning ?? processRuns
  const id = randomUUID()
  const host = hostname()
  await insertLife(ctx, {
    life_id: id,
    node_id: options.nodeId,
    hostname: host,
    pid: process.pid,
    alive_until_ms: ctx.clock.now().getTime() + LIFE_TTL_MS,
  })
  const takeBackDeadLives = async () => {
    const nowMs = ctx.clock.now().getTime()
    for (const life of await otherLivesOfNode(ctx, options.nodeId, id)) {
      // On this machine whether the process runs is known: one that runs, however late, is not dead.
      const silent = life.hostname === host ? !isRunning(life.pid) : life.alive_until_ms < nowMs
      const dead = life.alive_until_ms === ENDED || silent
      if (!dead) continue
      await options.takeBack(life.life_id)
      await deleteLife(ctx, life.life_id)
    }
  }
  await takeBackDeadLives()
  let heartbeat: NodeJS.Timeout | undefined
  const beat = async () => {
    if (!(await renewLife(ctx, id, ctx.clock.now().getTime() + LIFE_TTL_MS))) return options.lost()
    await takeBackDeadLives()
  }
  return {
    id,
    start() {
      heartbeat = setInterval(() => {
        beat().catch((error: unknown) => options.log.error({ err: error }, 'node heartbeat failed'))
      }, LIFE_HEARTBEAT_MS)
    },
    async stop() {
      clearInterval(heartbeat)
      await renewLife(ctx, id, ENDED)
    },
  }
}

/**
 * Whether process `pid` of this machine runs. Our own pid in another life's record is a life before a
 * restart in a fresh PID namespace (a container's pid 1), so it is not running.
 */
function processRuns(pid: number): boolean {
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
