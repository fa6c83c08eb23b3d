import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ServiceContext } from '../../context.ts'
import { badRequest, forbidden, unauthorized } from '../../http/errors.ts'
import type { RouteApp } from '../../http/route-app.ts'
import {
  CSRF_HEADER,
  clearedSessionCookie,
  hasValidCsrfToken,
  sessionCookie,
  sessionIdOf,
} from './session-cookie.ts'
import { Session, SetPasswordBody, SignInBody } from './sessions.schemas.ts'
import * as sessions from './sessions.service.ts'
import { throttledSignIn } from './sign-in-throttle.ts'

/** The dashboard's sign-in: sessions in an HttpOnly cookie instead of API keys in the browser. */
export const sessionsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  signInRoutes(app, ctx)
  signOutRoutes(app, ctx)
}

const TAGS = ['auth']
const unauthorizedResponse = { 401: ErrorResponse('Unauthorized: not signed in, or the session ended') }

/** Signing in, and the session it opens. */
function signInRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/auth/sign-in',
    {
      schema: {
        tags: TAGS,
        summary: 'Sign in with an email and password, or with an API key',
        description:
          'Sets the `svc_session` cookie (HttpOnly, SameSite=Lax, Secure when the public URL is https). ' +
          'A session signed in with a key acts with that key’s rights. Failed sign-ins are throttled per ' +
          'client address and per email (429 with retry-after).',
        body: SignInBody,
        response: {
          200: Session,
          401: ErrorResponse('Unauthorized: wrong email or password, or unknown API key'),
          429: ErrorResponse('Too Many Requests: too many failed sign-ins lately'),
        },
      },
    },
    async (request, reply) => {
      const { email, password, apiKey } = request.body
      const byPassword = email !== undefined && password !== undefined && apiKey === undefined
      if (!byPassword && (apiKey === undefined || email !== undefined || password !== undefined))
        throw badRequest('body must hold either email and password, or apiKey alone')
      const who = await throttledSignIn(ctx, { address: request.ip, email }, () =>
        byPassword
          ? sessions.verifyCredentials(ctx, email, password)
          : sessions.verifyApiKey(ctx, apiKey as string),
      )
      const { id, session } = await sessions.startSession(ctx, who)
      const view = await sessions.describeSession(ctx, id, session)
      if (!view) throw unauthorized('Wrong email or password, or unknown API key')
      reply.header('set-cookie', sessionCookie(id, Math.floor(ctx.sessions.maxAgeMs / 1000), ctx.publicUrl))
      return view
    },
  )

  app.get(
    '/v1/auth/session',
    {
      schema: {
        tags: TAGS,
        summary: 'Who is signed in',
        description: 'The session of the `svc_session` cookie, with its accounts and CSRF token.',
        response: { 200: Session, ...unauthorizedResponse },
      },
    },
    async (request, reply) => {
      const { id, session } = await currentSession(ctx, request, reply)
      const view = await sessions.describeSession(ctx, id, session)
      if (!view) throw signedOut(ctx, reply)
      return view
    },
  )
}

/** Signing out, and changing the password. */
function signOutRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/auth/sign-out',
    {
      schema: {
        tags: TAGS,
        summary: 'Sign out',
        description: `Ends the session on the server and clears the cookie. Needs the ${CSRF_HEADER} header.`,
        response: {
          204: { type: 'null', description: 'Signed out' },
          ...unauthorizedResponse,
          403: ErrorResponse(`Forbidden: missing or wrong ${CSRF_HEADER} header`),
        },
      },
    },
    async (request, reply) => {
      const { id } = await currentSession(ctx, request, reply)
      if (!hasValidCsrfToken(request, id)) throw forbidden(`Missing or wrong ${CSRF_HEADER} header`)
      await sessions.endSession(ctx, id)
      return reply.header('set-cookie', clearedSessionCookie(ctx.publicUrl)).status(204).send(null)
    },
  )

  app.post(
    '/v1/auth/password',
    {
      schema: {
        tags: TAGS,
        summary: 'Set a password with a one-time link’s token',
        description:
          'The token comes from a set-password link (first start, or the admin API). A link works once ' +
          'and expires; setting the password ends the user’s sessions.',
        body: SetPasswordBody,
        response: { 204: { type: 'null', description: 'Password set' } },
      },
    },
    async (request, reply) => {
      await sessions.setPasswordWithLink(ctx, request.body.token, request.body.password)
      return reply.status(204).send(null)
    },
  )
}

async function currentSession(ctx: ServiceContext, request: FastifyRequest, reply: FastifyReply) {
  const id = sessionIdOf(request)
  const session = id ? await sessions.liveSession(ctx, id) : undefined
  if (!id || !session) throw signedOut(ctx, reply)
  return { id, session }
}

/** 401, and the browser forgets a cookie that names no live session. */
function signedOut(ctx: ServiceContext, reply: FastifyReply) {
  reply.header('set-cookie', clearedSessionCookie(ctx.publicUrl))
  return unauthorized('Not signed in')
}
