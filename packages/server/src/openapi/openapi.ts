import swagger from '@fastify/swagger'
import { ErrorResponse, StrictObject } from '@svc/core'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { ACCOUNT_HEADER } from '../auth/authenticate.ts'
import { isAgentRoute, isOpenRoute } from '../http/route-kinds.ts'
import { RATE_LIMIT_WINDOW_SECONDS } from '../rate-limit/rate-limit.ts'

export interface OpenApiDocument {
  title: string
  description: string
  publicUrl: string
  tags: { name: string; description: string }[]
  /** `tenant`: routes take API keys and `x-svc-account`; `admin`: routes take the admin token. */
  audience: 'tenant' | 'admin'
}

/** The dashboard's session (POST /v1/auth/sign-in); its writes need the x-csrf-token header too. */
const SESSION_COOKIE_SCHEME = {
  type: 'apiKey',
  in: 'cookie',
  name: 'svc_session',
  description:
    'The dashboard’s session cookie, from POST /v1/auth/sign-in. POST, PUT, PATCH and DELETE made with it need the x-csrf-token header.',
} as const

/**
 * Registers @fastify/swagger on `app` (one document per encapsulated context) and completes every route
 * schema registered after it with what all keyed routes share: the account header, the error responses
 * and custom rate limits. The document is generated from the route schemas, never written by hand.
 */
export async function registerOpenApi(app: FastifyInstance, doc: OpenApiDocument): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.0',
      info: { title: doc.title, version: 'v1', description: doc.description },
      servers: [{ url: doc.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
          ...(doc.audience === 'tenant' ? { sessionCookie: SESSION_COOKIE_SCHEME } : {}),
        },
      },
      security:
        doc.audience === 'tenant' ? [{ bearerAuth: [] }, { sessionCookie: [] }] : [{ bearerAuth: [] }],
      tags: doc.tags,
    },
    transformObject: (document) =>
      'openapiObject' in document ? withOptionalBodies(document.openapiObject) : document.swaggerObject,
  })
  app.addHook('onRoute', doc.audience === 'tenant' ? completeRouteSchema : completeAdminRouteSchema)
}

type Operation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: object }> } }

/**
 * @fastify/swagger marks every request body required. A route whose body schema is nullable takes none
 * (Fastify validates a missing body as `null`), so its body is optional in the document too.
 */
function withOptionalBodies<T extends { paths?: object }>(document: T): T {
  for (const item of Object.values(document.paths ?? {}) as Record<string, unknown>[]) {
    for (const operation of Object.values(item ?? {}) as Operation[]) {
      const body = operation?.requestBody
      if (!body?.content) continue
      const schemas = Object.values(body.content).map((media) => media.schema as { nullable?: boolean })
      if (schemas.length > 0 && schemas.every((schema) => schema?.nullable === true)) body.required = false
    }
  }
  return document
}

function completeRouteSchema(route: RouteOptions): void {
  const { schema, responses } = routeSchemaOf(route)
  if (schema.hide) return
  // Keyed routes take only the query parameters they declare, as bodies take only their fields. Open
  // routes (pings, public pages) take any; agents are versioned clients with their own routes.
  if (!isOpenRoute(route.url) && !isAgentRoute(route.url)) schema.querystring ??= StrictObject({})
  const takesInput = Boolean(schema.body || schema.querystring || schema.params)
  if (takesInput) responses['400'] ??= ErrorResponse('Bad Request: a field is missing, unknown or invalid')
  responses['404'] ??= ErrorResponse('Not Found')
  if (isOpenRoute(route.url)) {
    schema.security = []
    return
  }
  const rateLimit = route.config?.rateLimit
  if (isAgentRoute(route.url)) {
    responses['401'] ??= ErrorResponse('Unauthorized: no, unknown or revoked private-location key')
    if (rateLimit) {
      responses['429'] ??= ErrorResponse('Too Many Requests')
      describeLimit(
        schema,
        `Rate limit: ${rateLimit.max} requests per ${RATE_LIMIT_WINDOW_SECONDS} seconds per private location.`,
      )
    }
    return
  }
  schema.headers ??= {
    type: 'object',
    properties: {
      [ACCOUNT_HEADER]: {
        type: 'string',
        format: 'uuid',
        description: 'The account to act in. Optional for service keys and for users with one account.',
      },
    },
  }
  responses['401'] ??= ErrorResponse('Unauthorized: no, malformed, unknown or revoked API key')
  responses['403'] ??= ErrorResponse('Forbidden: no access to the account, or a role too low')
  responses['429'] ??= ErrorResponse('Too Many Requests')
  if (rateLimit) {
    describeLimit(
      schema,
      `Rate limit: ${rateLimit.max} requests per ${RATE_LIMIT_WINDOW_SECONDS} seconds per API key, besides the global limit.`,
    )
  }
}

/** Once: a GET route's HEAD twin shares its schema object and comes through here too. */
function describeLimit(schema: MutableSchema, limit: string): void {
  if (typeof schema.description === 'string' && schema.description.includes(limit)) return
  schema.description = [schema.description, limit].filter(Boolean).join('\n\n')
}

function completeAdminRouteSchema(route: RouteOptions): void {
  const { schema, responses } = routeSchemaOf(route)
  if (schema.hide) return
  schema.querystring ??= StrictObject({})
  if (schema.body || schema.querystring || schema.params) responses['400'] ??= ErrorResponse('Bad Request')
  responses['401'] ??= ErrorResponse('Unauthorized: missing or wrong admin token')
  responses['404'] ??= ErrorResponse('Not Found')
}

type MutableSchema = Record<string, unknown> & { hide?: boolean }

function routeSchemaOf(route: RouteOptions) {
  route.schema = route.schema ?? {}
  const schema = route.schema as MutableSchema
  schema.response = schema.response ?? {}
  return { schema, responses: schema.response as Record<string, unknown> }
}
