import { type CommitRecord, recordingCommits } from '@svc/db'
import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify'

const commitsOfRequest = new WeakMap<FastifyRequest, CommitRecord>()

/**
 * Records, for each request of the routes `app` registers from now on, whether its handler got the
 * store to commit a write: most requests save in one transaction, but some save in steps (a group
 * trigger stores each check's result as it comes, cancelling a suite's runs asks and ends them in
 * turn), and one failing after a step must not say that nothing was saved.
 */
export function recordRequestCommits(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod
    route.handler = function (request, reply) {
      const record = { committed: false }
      commitsOfRequest.set(request, record)
      return recordingCommits(record, () => handler.call(this, request, reply))
    }
  })
}

/** Whether the store committed a write for `request` before it failed. */
export function savedPartOf(request: FastifyRequest | undefined): boolean {
  return (request && commitsOfRequest.get(request)?.committed) ?? false
}
