import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ServiceContext } from '../../context.ts'

const Location = Type.Object(
  {
    region: Type.String({ description: 'The name checks use in `locations`.' }),
    name: Type.String(),
    isDefault: Type.Boolean({ description: 'New checks that name no locations run here.' }),
  },
  { title: 'Location' },
)

/** The data-center locations this deployment serves (SVC_LOCATIONS). */
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
    async () =>
      ctx.locations.served.map((region) => ({
        region,
        name: region,
        isDefault: ctx.locations.defaults.includes(region),
      })),
  )
}
