import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Role } from '@svc/core'
import type { TestEngine, TestStore } from '@svc/db/testing'
import { PlaywrightPool } from '@svc/runner'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { type AppDeps, buildApp, serviceContextOf } from '../app.ts'
import { type Clock, systemClock } from '../clock.ts'
import { type AbuseLimits, DEFAULT_ABUSE_LIMITS } from '../config.ts'
import type { ArtifactStore, ServiceContext } from '../context.ts'
import { createSecretBox, type SecretBox } from '../crypto/secret-box.ts'
import * as accounts from '../features/accounts/accounts.service.ts'
import * as keys from '../features/api-keys/api-keys.service.ts'
import { LocalArtifactStore } from '../features/artifacts/artifact-store.ts'

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghij'

export interface TestApp {
  app: FastifyInstance
  store: TestStore
  ctx: ServiceContext
  /** A user who owns one account, with a user key. */
  owner: Tenant
  /** Sends a request as `as` (default: the owner), with its key and, when given, account header. */
  call(options: CallOptions): Promise<LightMyRequestResponse>
  /** Creates another user with `role` in `accountId` (default: the owner's account). */
  addUser(role: Role, accountId?: string): Promise<Tenant>
  close(): Promise<void>
}

export interface Tenant {
  userId: string | null
  accountId: string
  key: string
}

export type CallOptions = InjectOptions & { as?: Tenant | null; account?: string }

/** A real app on an isolated store of `engine`, with an owner already set up. */
export async function createTestApp(
  engine: TestEngine,
  options: {
    clock?: Clock
    logger?: boolean | object
    alerting?: ServiceContext['alerting']
    runnerLeaseMs?: number
    /** Where artifacts go; default: a fresh local directory. Its `limitBytes` also caps runs. */
    artifacts?: ArtifactStore
    /** Caps and limits against abuse, over DEFAULT_ABUSE_LIMITS. */
    limits?: Partial<AbuseLimits>
    trustProxy?: AppDeps['trustProxy']
    /** Default: a box with a fresh random key. */
    secretBox?: SecretBox
    /** The built dashboard to serve; default packages/web/dist. */
    webDistDir?: string
    connectionLimits?: AppDeps['connectionLimits']
    staticAddresses?: AppDeps['staticAddresses']
  } = {},
): Promise<TestApp> {
  const store = await engine.createStore()
  const secretBox = options.secretBox ?? createSecretBox(randomBytes(32))
  const artifactsDir = mkdtempSync(join(tmpdir(), 'svc-artifacts-'))
  const artifacts = options.artifacts ?? new LocalArtifactStore(artifactsDir)
  const scripts = {
    pool: new PlaywrightPool({ concurrency: 2, artifactLimitBytes: artifacts.limitBytes }),
    artifacts,
  }
  const deps: AppDeps = {
    store,
    secretBox,
    scripts,
    publicUrl: 'http://svc.test',
    adminToken: TEST_ADMIN_TOKEN,
    locations: { served: ['local', 'eu-west-1'], defaults: ['local'] },
    clock: options.clock ?? systemClock,
    alerting: options.alerting,
    runnerLeaseMs: options.runnerLeaseMs,
    logger: options.logger,
    limits: { ...DEFAULT_ABUSE_LIMITS, ...options.limits },
    trustProxy: options.trustProxy,
    webDistDir: options.webDistDir,
    connectionLimits: options.connectionLimits,
    staticAddresses: options.staticAddresses,
  }
  const ctx = serviceContextOf(deps)
  const app = await buildApp(deps)
  const account = await accounts.createAccount(ctx, { name: 'Test account' })
  const addUser = async (role: Role, accountId = account.id): Promise<Tenant> => {
    const suffix = randomBytes(4).toString('hex')
    const user = await accounts.createUser(ctx, {
      email: `user-${suffix}@example.com`,
      name: `User ${suffix}`,
    })
    await accounts.addMembership(ctx, { userId: user.id, accountId, role })
    const key = await keys.createApiKey(ctx, { name: 'test', owner: { userId: user.id } })
    return { userId: user.id, accountId, key: key.key }
  }
  const owner = await addUser('OWNER')
  return {
    app,
    store,
    ctx,
    owner,
    addUser,
    call({ as = owner, account, headers, ...rest }) {
      return app.inject({
        ...rest,
        headers: {
          ...(as ? { authorization: `Bearer ${as.key}` } : {}),
          ...(account ? { 'x-svc-account': account } : {}),
          ...headers,
        },
      })
    },
    async close() {
      await app.close()
      await scripts.pool.close()
      rmSync(artifactsDir, { recursive: true, force: true })
      await store.dispose()
    },
  }
}

/** The owner of a new account, made through the admin API: a stranger to the test's owner. */
export async function ownerOfAnotherAccount(t: TestApp): Promise<Tenant> {
  const created = await t.call({
    method: 'POST',
    url: '/admin/v1/accounts',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    payload: { name: 'Other' },
    as: null,
  })
  return t.addUser('OWNER', json(created).id)
}

/** Parses a JSON response body (typed loosely: tests assert on values). */
export function json(response: LightMyRequestResponse): any {
  return JSON.parse(response.body)
}
