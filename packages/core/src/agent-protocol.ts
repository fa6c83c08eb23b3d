/** The agent protocol (`/agent/v1`): what the server validates and the agent sends, in one place. */

import { type Static, Type } from 'typebox'
import { StrictObject } from './schema-helpers.ts'

/** Every agent call says which agent it is (a UUID the agent picks at start). */
export const AgentHeaders = Type.Object({
  'x-svc-agent-id': Type.String({ format: 'uuid', description: 'The calling agent (chosen at its start).' }),
})

export const PollQuery = StrictObject({
  max: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Jobs to take at most.' }),
  ),
  waitSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 30,
      default: 25,
      description: 'Long-poll: how long to wait for a job.',
    }),
  ),
})

/** One attempt for an agent to run, then post back with its outcome. */
export const AgentJob = Type.Object(
  {
    jobId: Type.String(),
    slotKey: Type.String(),
    attempt: Type.Integer(),
    firstStartedMs: Type.Number(),
    location: Type.String(),
    resultId: Type.String({ format: 'uuid', description: 'The id the result gets; artifacts go under it.' }),
    checkId: Type.String({ format: 'uuid' }),
    checkType: Type.String(),
    job: Type.Unknown({ description: 'The runner job: definition or script, variables substituted.' }),
    hidden: Type.Array(Type.String(), { description: 'Values to scrub from everything sent back.' }),
    proxyUrl: Type.Union([Type.String(), Type.Null()], {
      description:
        'The private location’s proxy for URL, API and script checks (before the agent’s HTTP_PROXY).',
    }),
  },
  { title: 'AgentJob' },
)
export type AgentJob = Static<typeof AgentJob>

export const JobResultBody = StrictObject({
  slotKey: Type.String({ minLength: 1, maxLength: 300 }),
  attempt: Type.Integer({ minimum: 1, maximum: 100 }),
  /** Echoed from the job (a time in ms); it is kept with a retry, as a 64-bit integer. */
  firstStartedMs: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  location: Type.String({ minLength: 1, maxLength: 100 }),
  resultId: Type.String({ format: 'uuid' }),
  checkId: Type.String({ format: 'uuid' }),
  outcome: StrictObject({
    verdict: StrictObject({
      startedAt: Type.String({ format: 'date-time' }),
      stoppedAt: Type.String({ format: 'date-time' }),
      responseTime: Type.Number({ minimum: 0 }),
      hasFailures: Type.Boolean(),
      hasErrors: Type.Boolean(),
      isDegraded: Type.Boolean(),
      overMaxResponseTime: Type.Boolean(),
      /** Sent (true) only for a run stopped on request, so servers from before cancelling take the rest. */
      isCancelled: Type.Optional(Type.Boolean()),
      error: Type.Union([
        StrictObject({ type: Type.String({ maxLength: 64 }), message: Type.String({ maxLength: 100_000 }) }),
        Type.Null(),
      ]),
    }),
    detailKey: Type.String({ maxLength: 64 }),
    /** Checked by the check's type against AGENT_DETAILS (agent-details.ts) where the server takes it. */
    detail: Type.Unknown({
      description:
        'The run’s detail, stored under its check type’s key: an object (or null) whose fields the server reads ' +
        'must be of the runner’s types and within bounds (400 naming the field otherwise); other fields are kept.',
    }),
    /** An HTTP status: three digits. */
    statusCode: Type.Union([Type.Integer({ minimum: 0, maximum: 999 }), Type.Null()]),
  }),
})
export type JobResultBody = Static<typeof JobResultBody>

/** What an agent posts back for `job` once it ran. */
export function jobResultBody(job: AgentJob, outcome: JobResultBody['outcome']): JobResultBody {
  const { slotKey, attempt, firstStartedMs, location, resultId, checkId } = job
  return { slotKey, attempt, firstStartedMs, location, resultId, checkId, outcome }
}

/** The most outcomes one post carries. */
export const MAX_RESULTS_PER_POST = 100

/** Several outcomes in one post (agents from 2026-11 on): each stored as `POST /agent/v1/results` stores one. */
export const JobResultsBody = StrictObject({
  results: Type.Array(JobResultBody, { minItems: 1, maxItems: MAX_RESULTS_PER_POST }),
})
export type JobResultsBody = Static<typeof JobResultsBody>

/** What became of each posted outcome, in the order posted. */
export const PostedResults = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        resultId: Type.String(),
        statusCode: Type.Integer({
          description:
            '204 stored (or stored before); 400 its detail is malformed (a value of another type or past its ' +
            'bound where the server reads it, nesting, a script outcome’s artifact lists); 404 its ' +
            'check is gone, or the job was not given to this ' +
            'location or its run is over; 409 its resultId is another run’s.',
        }),
        message: Type.Optional(Type.String()),
      }),
    ),
  },
  { title: 'PostedResults' },
)
export type PostedResults = Static<typeof PostedResults>

export const HeartbeatBody = StrictObject({
  version: Type.String({ minLength: 1, maxLength: 64 }),
  hostname: Type.String({ minLength: 1, maxLength: 255 }),
  /** Stored as a 32-bit integer. */
  runningJobs: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }),
})
export type HeartbeatBody = Static<typeof HeartbeatBody>

export const HeartbeatReply = Type.Object(
  {
    leaseSeconds: Type.Number(),
    cancelJobIds: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Jobs of this agent in flight that were cancelled (suite runs): stop each and post its outcome, ' +
          'marked isCancelled. Agents from before cancelling ignore it and finish those runs.',
      }),
    ),
  },
  { title: 'HeartbeatReply' },
)
export type HeartbeatReply = Static<typeof HeartbeatReply>

/** Error-level events: these fields and nothing else (no credentials, variables, URLs, headers or bodies). */
export const AgentErrorBody = StrictObject({
  message: Type.String({ minLength: 1, maxLength: 10_000 }),
  stack: Type.Optional(Type.Union([Type.String({ maxLength: 50_000 }), Type.Null()])),
  agentVersion: Type.String({ minLength: 1, maxLength: 64 }),
  platform: Type.String({ minLength: 1, maxLength: 64 }),
  runtimeVersion: Type.String({ minLength: 1, maxLength: 64 }),
})
export type AgentErrorBody = Static<typeof AgentErrorBody>
