import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

/** `GET /v1/static-ips.txt` and `/v1/static-ipv6s.txt`: the source addresses of check runs, from config. */
export const staticAddressesRoutes: FastifyPluginAsyncTypebox<{
  addresses: { ipv4: string[]; ipv6: string[] }
}> = async (app, { addresses }) => {
  for (const [path, list, label] of [
    ['/v1/static-ips.txt', addresses.ipv4, 'IPv4'],
    ['/v1/static-ipv6s.txt', addresses.ipv6, 'IPv6'],
  ] as const) {
    app.get(
      path,
      {
        config: { rateLimit: { group: 'static-addresses', max: 60 } },
        schema: {
          tags: ['locations'],
          summary: `List the ${label} source addresses of check runs`,
          description: 'Plain text, one address a line (SVC_STATIC_IPS / SVC_STATIC_IPV6S); empty when none.',
          response: {
            200: {
              description: `One ${label} address a line`,
              content: { 'text/plain': { schema: Type.String() } },
            },
          },
        },
      },
      async (_request, reply) =>
        reply.type('text/plain; charset=utf-8').send(list.map((address) => `${address}\n`).join('')),
    )
  }
}
