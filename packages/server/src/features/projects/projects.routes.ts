import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponse } from '@svc/core'
import { Type } from 'typebox'
import { authOf } from '../../auth/authenticate.ts'
import type { ServiceContext } from '../../context.ts'
import { openEventStream } from '../../http/event-stream.ts'
import type { RouteApp } from '../../http/route-app.ts'
import type { DiffEntry } from './apply-project.ts'
import * as deployments from './deployments.service.ts'
import {
  CompletionQuery,
  DeleteProjectQuery,
  DeployBody,
  Deployment,
  DeploymentParams,
  DeployQuery,
  Diff,
  Project,
  ProjectInput,
  ProjectParams,
} from './projects.schemas.ts'
import * as projects from './projects.service.ts'

export const projectsRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  deployRoute(app, ctx)
  projectReadRoutes(app, ctx)
  projectWriteRoutes(app, ctx)
  deploymentRoutes(app, ctx)
  deploymentProgressRoutes(app, ctx)
}

const tags = ['projects']

/** A deploy of a project, or its dry run. */
function deployRoute(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/v1/projects/deploy',
    {
      schema: {
        tags,
        summary: 'Deploy a monitoring-as-code project',
        description:
          'Makes the account’s resources what the payload says, in one transaction. A dry run answers the ' +
          'diff at once (200); a deploy answers 202 with a deployment to follow. 409 with ' +
          '`attributes.deploymentId` while another deployment of the project runs.',
        querystring: DeployQuery,
        body: DeployBody,
        response: {
          200: Diff,
          202: Deployment,
          409: ErrorResponse('A deployment of the project is running'),
        },
      },
    },
    async (request, reply) => {
      const { accountId } = authOf(request)
      const { dryRun, preserveResources, scheduleOnDeploy } = request.query
      const options = {
        preserveResources: preserveResources ?? false,
        scheduleOnDeploy: scheduleOnDeploy ?? true,
      }
      if (dryRun) return deployments.previewDeploy(ctx, accountId, request.body, options)
      return reply.status(202).send(await deployments.startDeployment(ctx, accountId, request.body, options))
    },
  )
}

/** Projects read, under /v1 and under the hosted CLI’s /next. */
function projectReadRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/projects',
    { schema: { tags, summary: 'List projects', response: { 200: Type.Array(Project) } } },
    async (request) => projects.listProjects(ctx, authOf(request).accountId),
  )

  app.get(
    '/v1/projects/:logicalId',
    { schema: { tags, summary: 'Retrieve a project', params: ProjectParams, response: { 200: Project } } },
    async (request) => projects.getProject(ctx, authOf(request).accountId, request.params.logicalId),
  )

  // The hosted CLI reads and makes projects under /next (outside its public OpenAPI).
  app.get(
    '/next/projects',
    { schema: { tags, summary: 'List projects (hosted CLI)', response: { 200: Type.Array(Project) } } },
    async (request) => projects.listProjects(ctx, authOf(request).accountId),
  )

  app.get(
    '/next/projects/:logicalId',
    {
      schema: {
        tags,
        summary: 'Retrieve a project (hosted CLI)',
        params: ProjectParams,
        response: { 200: Project },
      },
    },
    async (request) => projects.getProject(ctx, authOf(request).accountId, request.params.logicalId),
  )
}

/** A project made empty (hosted CLI) or deleted with its resources. */
function projectWriteRoutes(app: RouteApp, ctx: ServiceContext) {
  app.post(
    '/next/projects',
    {
      schema: {
        tags,
        summary: 'Create an empty project (hosted CLI)',
        description: 'The hosted CLI’s import makes the project before its first deploy. 409 if it exists.',
        body: ProjectInput,
        response: { 201: Project, 409: ErrorResponse('The project exists already') },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await projects.createProject(ctx, authOf(request).accountId, request.body)),
  )

  app.delete(
    '/v1/projects/:logicalId',
    {
      schema: {
        tags,
        summary: 'Delete a project',
        description:
          'Deletes the project’s resources (or detaches them with preserveResources) and then the project, ' +
          'as a deployment (202). A project that doesn’t exist answers 200 with an empty diff.',
        params: ProjectParams,
        querystring: DeleteProjectQuery,
        response: { 200: Diff, 202: Deployment },
      },
    },
    async (request, reply) => {
      const { preserveResources = false, dryRun = false } = request.query
      const outcome = await projects.deleteProject(ctx, authOf(request).accountId, request.params.logicalId, {
        preserveResources,
        dryRun,
      })
      if (!outcome) return { diff: [] as DiffEntry[] }
      return 'status' in outcome ? reply.status(202).send(outcome) : outcome
    },
  )
}

/** A deployment read, or waited for until it ends. */
function deploymentRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/projects/:logicalId/deployments/:deploymentId',
    {
      schema: {
        tags,
        summary: 'Retrieve a deployment',
        params: DeploymentParams,
        response: { 200: Deployment },
      },
    },
    async (request) => {
      const { logicalId, deploymentId } = request.params
      return deployments.getDeployment(ctx, authOf(request).accountId, logicalId, deploymentId)
    },
  )

  app.get(
    '/v1/projects/:logicalId/deployments/:deploymentId/completion',
    {
      schema: {
        tags,
        summary: 'Wait for a deployment to end',
        description: 'Answers the deployment once it ended; 408 if it still runs after maxWaitSeconds.',
        params: DeploymentParams,
        querystring: CompletionQuery,
        response: { 200: Deployment, 408: ErrorResponse('Still running') },
      },
    },
    async (request) => {
      const { logicalId, deploymentId } = request.params
      const waitMs = (request.query.maxWaitSeconds ?? 30) * 1000
      return deployments.awaitDeployment(ctx, authOf(request).accountId, logicalId, deploymentId, waitMs)
    },
  )
}

/** A deployment followed as it runs, or cancelled. */
function deploymentProgressRoutes(app: RouteApp, ctx: ServiceContext) {
  app.get(
    '/v1/projects/:logicalId/deployments/:deploymentId/events',
    {
      schema: {
        tags,
        summary: 'Follow a deployment (Server-Sent Events)',
        description:
          '`progress` frames with `{progress}` (0–100), then `complete` with the deployment, or `error` with ' +
          '`{message}` when it failed.',
        params: DeploymentParams,
        response: {
          200: Type.String({
            description:
              'A text/event-stream of `progress`, then `complete` or `error` frames (and keep-alive comments).',
          }),
        },
      },
    },
    async (request, reply) => {
      const { logicalId, deploymentId } = request.params
      const { accountId } = authOf(request)
      // Unknown deployments answer their 404 before the stream starts.
      await deployments.getDeployment(ctx, accountId, logicalId, deploymentId)
      const stream = openEventStream(request, reply)
      const ended = await deployments.followDeployment(
        ctx,
        accountId,
        logicalId,
        deploymentId,
        (progress) => stream.send('progress', { progress }),
        stream.isOpen,
      )
      if (stream.isOpen()) {
        if (ended.status === 'FAILED')
          stream.send('error', { message: ended.error?.message ?? 'The deployment failed' })
        else stream.send('complete', ended)
      }
      stream.end()
    },
  )

  app.post(
    '/v1/projects/:logicalId/deployments/:deploymentId/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a deployment',
        description: 'A deployment cancelled before its transaction commits applies nothing. Idempotent.',
        params: DeploymentParams,
        response: { 200: Deployment },
      },
    },
    async (request) => {
      const { logicalId, deploymentId } = request.params
      return deployments.cancelDeployment(ctx, authOf(request).accountId, logicalId, deploymentId)
    },
  )
}
