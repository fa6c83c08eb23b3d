import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { StrictObject } from '@svc/core'
import { Type } from 'typebox'
import type { RouteApp } from '../../http/route-app.ts'

interface StaticAddresses {
  ipv4: string[]
  ipv6: string[]
}

/**
 * The source addresses of check runs, from config (SVC_STATIC_IPS / SVC_STATIC_IPV6S): as text files, as
 * JSON lists, and by location. They are set for the install, not per location, so each location lists them all.
 */
export const staticAddressesRoutes: FastifyPluginAsyncTypebox<{
  addresses: StaticAddresses
  /** The data-center locations this install serves. */
  locations: string[]
}> = async (app, { addresses, locations }) => {
  const families = [
    { segment: 'static-ips', list: addresses.ipv4, label: 'IPv4', format: 'ipv4' },
    { segment: 'static-ipv6s', list: addresses.ipv6, label: 'IPv6', format: undefined },
  ] as const
  for (const family of families) addressFamilyRoutes(app, family, locations)
}

const config = { rateLimit: { group: 'static-addresses', max: 60 } }
const tags = ['locations']

interface AddressFamily {
  /** The path's segment: `/v1/{segment}`. */
  segment: string
  list: string[]
  label: 'IPv4' | 'IPv6'
  format: 'ipv4' | undefined
}

/** One family's addresses: as a text file, as a JSON list, and by location. */
function addressFamilyRoutes(
  app: RouteApp,
  { segment, list, label, format }: AddressFamily,
  locations: string[],
) {
  const Address = Type.String(format ? { format } : {})
  app.get(
    `/v1/${segment}.txt`,
    {
      config,
      schema: {
        tags,
        summary: `List the ${label} source addresses of check runs as a text file`,
        description: `Plain text, one address a line (SVC_STATIC_${label === 'IPv4' ? 'IPS' : 'IPV6S'}); empty when none.`,
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
  app.get(
    `/v1/${segment}`,
    {
      config,
      schema: {
        tags,
        summary: `List the ${label} source addresses of check runs`,
        description: 'The configured addresses; an empty list when none are configured.',
        querystring: StrictObject({}),
        response: { 200: Type.Array(Address) },
      },
    },
    async () => list,
  )
  app.get(
    `/v1/${segment}-by-region`,
    {
      config,
      schema: {
        tags,
        summary: `List the ${label} source addresses of check runs by location`,
        description:
          'Each data-center location this install serves, with the addresses its runs may come from: the ' +
          'configured ones, which are set for the install rather than per location. Private locations run ' +
          'from their agents’ own networks and are not listed.',
        querystring: StrictObject({}),
        response: { 200: Type.Record(Type.String(), Type.Array(Address)) },
      },
    },
    async () => Object.fromEntries(locations.map((location) => [location, list])),
  )
}
