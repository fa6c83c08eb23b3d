import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'
import { listLocations } from './locations.service.ts'

const Location = Type.Object(
  {
    region: Type.String({ description: 'The name checks use in `locations`.' }),
    name: Type.String(),
    isDefault: Type.Boolean({ description: 'New checks that name no locations run here.' }),
    runnerConnected: Type.Boolean({
      description:
        'Whether a process that runs this location’s checks was seen in the last 90 seconds (it says so every 30 s; one that stops says so at once).',
    }),
  },
  { title: 'Location' },
)

/** The data-center locations this deployment serves (SVC_LOCATIONS) and whether a runner serves each. */
export const locationsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/locations',
    {
      schema: {
        tags: ['locations'],
        summary: 'List data-center locations',
        response: { 200: Type.Array(Location) },
      },
    },
    async () => listLocations(ctx),
  )
}
