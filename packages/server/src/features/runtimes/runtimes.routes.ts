import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Runtime, RuntimeIdParams } from './runtimes.schemas.ts'
import { getRuntime, listRuntimes } from './runtimes.service.ts'

/** The runtimes a script check may name, with the packages a script may import in each. */
export const runtimesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['runtimes']
  app.get(
    '/v1/runtimes',
    {
      schema: {
        tags,
        summary: 'List runtimes',
        description: 'Every runtime id with the npm packages and versions its scripts may import.',
        response: { 200: Type.Array(Runtime) },
      },
    },
    async () => listRuntimes(),
  )
  app.get(
    '/v1/runtimes/:id',
    {
      schema: { tags, summary: 'Retrieve a runtime', params: RuntimeIdParams, response: { 200: Runtime } },
    },
    async (request) => getRuntime(request.params.id),
  )
}
