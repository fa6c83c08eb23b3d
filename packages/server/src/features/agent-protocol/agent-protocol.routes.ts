import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  AgentErrorBody,
  AgentHeaders,
  AgentJob,
  HeartbeatBody,
  HeartbeatReply,
  JobResultBody,
  JobResultsBody,
  MAX_RESULTS_PER_POST,
  PollQuery,
  PostedResults,
  StrictObject,
} from '@svc/core'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { recordFailedAuth } from '../../auth/failed-auth-throttle.ts'
import type { ServiceContext } from '../../context.ts'
import { HttpError } from '../../http/errors.ts'
import type { RouteApp } from '../../http/route-app.ts'
import { enforceRouteRateLimit } from '../../rate-limit/rate-limit.ts'
import * as artifacts from './agent-artifacts.service.ts'
import * as agents from './agent-protocol.service.ts'
import { MAX_DETAIL_DEPTH } from './outcome-problems.ts'

const RESULT_BODY_LIMIT_BYTES = 16 * 1024 * 1024
/** A batch holds at least one outcome of the most a single post may carry. */
const RESULTS_BODY_LIMIT_BYTES = 2 * RESULT_BODY_LIMIT_BYTES
/**
 * A posted detail may nest MAX_DETAIL_DEPTH levels below its post's own (at most four): a little more is
 * still parsed, so that one outcome of a batch nested too deep is refused alone, naming its detail.
 * Exported because the tests nest past it.
 */
export const RESULT_JSON_DEPTH = MAX_DETAIL_DEPTH + 16
/**
 * Crash reports per location per window: far above what healthy agents send, a bound on a flood.
 * Exported because the tests post past it.
 */
export const AGENT_ERRORS_PER_WINDOW = 60

/**
 * `/agent/v1`: what svc agents call, with a private-location key as bearer token (not an API key) and
 * their own id in `x-svc-agent-id`. Not rate limited per key: a location's agents poll continuously.
 * Only error reports are, per location, since nothing else bounds how many rows they write.
 */
export const agentProtocolRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  // Artifacts travel as raw bytes.
  app.addContentTypeParser(
    'application/octet-stream',
    { parseAs: 'buffer', bodyLimit: agents.AGENT_ARTIFACT_LIMIT_BYTES },
    (_request, body, done) => done(null, body),
  )
  const agentOf = authenticateAgents(app, ctx)
  jobRoutes(app, ctx, agentOf, endPollsOnClose(app))
  resultRoute(app, ctx, agentOf)
  resultBatchRoute(app, ctx, agentOf)
  artifactRoutes(app, ctx, agentOf)
  presenceRoutes(app, ctx, agentOf)
}

const TAGS = ['agent']

/** The agent that makes a request, authenticated as it arrived. */
type AgentOf = (request: FastifyRequest) => Promise<agents.CallingAgent>

/**
 * The key is checked as the request arrives, before its body (up to 150 MB) is read or validated:
 * a caller without a valid key gets 401, never a validation answer.
 */
function authenticateAgents(app: RouteApp, ctx: ServiceContext): AgentOf {
  const callers = new WeakMap<FastifyRequest, agents.CallingAgent>()
  app.addHook('onRequest', async (request, reply) => {
    const agent = await agents
      .authenticateAgent(ctx, request.headers.authorization, request.headers['x-svc-agent-id'] as string)
      .catch(async (error: unknown) => {
        // A key presented and refused is a failed attempt of the client address (429 when too many).
        if (request.headers.authorization && error instanceof HttpError && error.statusCode === 401)
          await recordFailedAuth(ctx, 'private-location-key', request.ip)
        throw error
      })
    callers.set(request, agent)
    await enforceRouteRateLimit(ctx, `private-location:${agent.location.id}`, request, reply)
  })
  return async (request) => {
    const agent = callers.get(request)
    if (!agent) throw new Error(`route ${request.routeOptions.url} ran without an agent`)
    return agent
  }
}

/** The long-polls waiting on this server, and whether it is stopping. */
interface WaitingPolls {
  stopping: boolean
  /** What aborts each waiting long-poll: the server stopping. */
  polls: Set<AbortController>
}

/**
 * A server that is stopping answers its waiting long-polls at once, with no run: they would hold its
 * shutdown for up to their waitSeconds (25 s by default), and a run leased now would only wait out
 * its lease. The agents poll again, reaching another node (or this one once it is back).
 */
function endPollsOnClose(app: RouteApp): WaitingPolls {
  const waiting: WaitingPolls = { stopping: false, polls: new Set() }
  app.addHook('preClose', (done) => {
    waiting.stopping = true
    for (const poll of waiting.polls) poll.abort()
    done()
  })
  return waiting
}

function jobRoutes(app: RouteApp, ctx: ServiceContext, agentOf: AgentOf, waiting: WaitingPolls) {
  app.get(
    '/agent/v1/jobs',
    {
      schema: {
        tags: TAGS,
        summary: 'Take due runs of the agent’s private location (long-poll)',
        description:
          'Answers as soon as a run is due, or an empty list after waitSeconds (at once when ' +
          'the server is stopping). Each run is ' +
          'leased to the calling agent; heartbeats keep the leases of runs in flight.',
        headers: AgentHeaders,
        querystring: PollQuery,
        response: { 200: Type.Array(AgentJob) },
      },
    },
    async (request) => {
      const agent = await agentOf(request)
      const poll = new AbortController()
      waiting.polls.add(poll)
      // An agent that hangs up ends its poll's sleep too.
      const hungUp = () => poll.abort()
      request.raw.socket.once('close', hungUp)
      try {
        return await agents.pollJobs(ctx, agent, {
          max: request.query.max ?? 10,
          waitMs: (request.query.waitSeconds ?? 25) * 1000,
          gone: () => waiting.stopping || request.raw.destroyed || request.raw.socket.destroyed,
          signal: poll.signal,
        })
      } finally {
        waiting.polls.delete(poll)
        request.raw.socket.off('close', hungUp)
      }
    },
  )
}

/** One run's outcome. */
function resultRoute(app: RouteApp, ctx: ServiceContext, agentOf: AgentOf) {
  app.post(
    '/agent/v1/results',
    {
      bodyLimit: RESULT_BODY_LIMIT_BYTES,
      config: { maxJsonDepth: RESULT_JSON_DEPTH },
      schema: {
        tags: TAGS,
        summary: 'Post the outcome of a run',
        description:
          'Only for a run the server gave this key’s location and that is still open (404 otherwise). Stored ' +
          `once per job id: posting the same outcome again stores nothing new and answers 204 again. A detail ` +
          `nested deeper than ${MAX_DETAIL_DEPTH} levels, or holding a value of another type or past ` +
          'its bound where the server reads it (by the check’s type), is 400 naming the field. Under ' +
          'the resultId its job carried: another run’s result id is 409.',
        headers: AgentHeaders,
        body: JobResultBody,
        response: { 204: { type: 'null', description: 'Stored' } },
      },
    },
    async (request, reply) => {
      await agents.postResult(ctx, await agentOf(request), request.body)
      return reply.status(204).send(null)
    },
  )
}

/** Several runs' outcomes at once, sharing commits. */
function resultBatchRoute(app: RouteApp, ctx: ServiceContext, agentOf: AgentOf) {
  app.post(
    '/agent/v1/results/batch',
    {
      bodyLimit: RESULTS_BODY_LIMIT_BYTES,
      config: { maxJsonDepth: RESULT_JSON_DEPTH },
      schema: {
        tags: TAGS,
        summary: 'Post the outcomes of several runs at once',
        description:
          `Up to ${MAX_RESULTS_PER_POST} outcomes, each stored as POST /agent/v1/results stores one, sharing ` +
          'commits. Answers what became of each, in order: 204 stored (or stored before), 400 a script ' +
          `outcome’s artifact lists are malformed or an outcome’s detail nests deeper than ${MAX_DETAIL_DEPTH} ` +
          'levels or holds a value of another type or past its bound where the server reads it, ' +
          '404 its check is ' +
          'gone, or the job was not given to this location or its run is over, 409 its resultId is another ' +
          'run’s (stored, or earlier in the batch). A failure of the store ' +
          'answers 5xx: post them all again.',
        headers: AgentHeaders,
        body: JobResultsBody,
        response: { 200: PostedResults },
      },
    },
    async (request) => {
      const { results } = request.body
      const refusals = await agents.postResults(ctx, await agentOf(request), results)
      return {
        results: results.map((body, i) => {
          const refused = refusals[i]
          return refused
            ? { resultId: body.resultId, statusCode: refused.statusCode, message: refused.message }
            : { resultId: body.resultId, statusCode: 204 }
        }),
      }
    },
  )
}

function artifactRoutes(app: RouteApp, ctx: ServiceContext, agentOf: AgentOf) {
  app.put(
    '/agent/v1/checks/:checkId/results/:resultId/artifacts/*',
    {
      bodyLimit: agents.AGENT_ARTIFACT_LIMIT_BYTES,
      schema: {
        tags: TAGS,
        summary: 'Upload one artifact (screenshot, trace, video) of a script run, before posting its outcome',
        description:
          'Under the resultId the run was given, only while the run is open for this key’s location (404 ' +
          'otherwise: another location’s run, a made-up id, a run whose outcome was posted). A run’s ' +
          'artifacts may add up to 150 MB: an upload past that answers 413 and stores nothing. Bytes go as ' +
          'application/octet-stream (415 otherwise). Uploading ' +
          'the same path again replaces it.',
        headers: AgentHeaders,
        params: StrictObject({
          checkId: Type.String({ format: 'uuid' }),
          resultId: Type.String({ format: 'uuid' }),
          '*': Type.String({ minLength: 1, maxLength: 1024 }),
        }),
        response: { 204: { type: 'null', description: 'Stored' } },
      },
    },
    async (request, reply) => {
      const { checkId, resultId, '*': path } = request.params
      const agent = await agentOf(request)
      // Other content types this server parses (JSON, text) are no artifact's bytes.
      if (!Buffer.isBuffer(request.body))
        throw new HttpError(415, 'An artifact is uploaded as application/octet-stream')
      await artifacts.uploadArtifact(ctx, agent, { checkId, resultId, path, bytes: request.body })
      return reply.status(204).send(null)
    },
  )
}

/** Heartbeats, goodbyes and crash reports. */
function presenceRoutes(app: RouteApp, ctx: ServiceContext, agentOf: AgentOf) {
  app.post(
    '/agent/v1/heartbeat',
    {
      schema: {
        tags: TAGS,
        summary: 'Say the agent is alive; renews the leases of its runs in flight',
        description: 'Answers how long leases last and which of the agent’s runs in flight were cancelled.',
        headers: AgentHeaders,
        body: HeartbeatBody,
        response: { 200: HeartbeatReply },
      },
    },
    async (request) => agents.agentHeartbeat(ctx, await agentOf(request), request.body),
  )

  app.delete(
    '/agent/v1/heartbeat',
    {
      schema: {
        tags: TAGS,
        summary: 'Say goodbye: the agent is shutting down',
        headers: AgentHeaders,
        response: { 204: { type: 'null', description: 'Gone' } },
      },
    },
    async (request, reply) => {
      await agents.agentGoodbye(ctx, await agentOf(request))
      return reply.status(204).send(null)
    },
  )

  app.post(
    '/agent/v1/errors',
    {
      config: { rateLimit: { group: 'agent-errors', max: AGENT_ERRORS_PER_WINDOW } },
      schema: {
        tags: TAGS,
        summary: 'Report an error-level event of the agent (crash detection)',
        description:
          'Message, stack, agent version, platform and runtime version only. Agents with ' +
          'EXTERNAL_OBSERVABILITY=off send none.',
        headers: AgentHeaders,
        body: AgentErrorBody,
        response: { 202: { type: 'null', description: 'Recorded' } },
      },
    },
    async (request, reply) => {
      await agents.recordAgentError(ctx, await agentOf(request), request.body)
      return reply.status(202).send(null)
    },
  )
}
