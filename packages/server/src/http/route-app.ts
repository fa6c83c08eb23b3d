import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

/**
 * The app a feature's route plugin is given, typed by TypeBox: what the functions a long route table
 * splits into (one per resource or group of verbs) take, so their routes stay typed like the plugin's.
 */
export type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0]
