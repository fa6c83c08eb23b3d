import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import type { InjectOptions } from 'fastify'
import { LocalArtifactStore } from '../features/artifacts/artifact-store.ts'
import {
  ACCOUNT_RESOURCES,
  IDEMPOTENT_FOR_STRANGERS,
  isPublicStatusRoute,
  NOT_ACCOUNT_RESOURCES,
} from '../testing/account-resources.ts'
import { type ApiOperation, apiOperations, leapingClock, validPathValue } from '../testing/api-operations.ts'
import { type Made, ResourceMaker } from '../testing/resource-maker.ts'
import { createTestApp, json, ownerOfAnotherAccount, type Tenant, type TestApp } from '../testing/test-app.ts'

/**
 * The admin API (/admin/openapi.json) is left out: it is cross-account by design, called with the
 * operator's token, never an account's key.
 */
const WRITES_ANY_ROLE: Record<string, string> = {
  'POST /v1/api-keys': 'every user manages their own user keys',
  'DELETE /v1/api-keys/{id}': 'every user manages their own user keys',
}
/** Operations that need the ADMIN role (the routes' `minRole`); every other write needs READ_WRITE. */
const ADMIN_ONLY = [
  'PATCH /v1/accounts/me',
  'POST /v1/accounts/me/members',
  'PATCH /v1/accounts/me/members/{userId}',
  'DELETE /v1/accounts/me/members/{userId}',
  'PATCH /v1/accounts/{accountId}/members/{userId}',
  'DELETE /v1/accounts/{accountId}/members/{userId}',
  'POST /v1/private-locations/{id}/keys',
  'DELETE /v1/private-locations/{id}/keys/{keyId}',
]

const READS = new Set(['GET', 'HEAD'])
const nameOf = (op: ApiOperation) => `${op.method} ${op.path}`
const pathParams = (op: ApiOperation) => op.parameters.filter((p) => p.in === 'path')
/** Operations called with an account's API key. */
// Signing in, out and setting a password act on a password or a session of one's own, not an account.
const keyed = (op: ApiOperation) =>
  !op.admin && !/^\/(status|ping|agent)\//.test(op.path) && !op.path.startsWith('/v1/auth/')

/** `template` with each `{name}` replaced by its value in `ids`. */
function fill(template: string, ids: Made['ids']): string {
  return template.replace(/\{([^}]+)\}/g, (whole, name: string) =>
    name in ids ? encodeURIComponent(String(ids[name])).replace(/%2F/g, '/') : whole,
  )
}

for (const engine of testEngines()) {
  describe(`tenant isolation on every route of /openapi.json on ${engine.engine}`, () => {
    let t: TestApp
    let artifactsDir: string
    let a: ResourceMaker
    let stranger: Tenant
    const operations: ApiOperation[] = []
    before(async () => {
      artifactsDir = mkdtempSync(join(tmpdir(), 'svc-isolation-'))
      const artifacts = new LocalArtifactStore(artifactsDir)
      // The rate limit counts every request per key; a clock that leaps a minute per read keeps it out.
      t = await createTestApp(engine, { clock: leapingClock(new Date().toISOString()), artifacts })
      a = new ResourceMaker(t, t.owner, artifacts)
      stranger = await ownerOfAnotherAccount(t)
      operations.push(...(await apiOperations(t)).filter((op) => !op.admin))
    })
    after(async () => {
      await t.close()
      rmSync(artifactsDir, { recursive: true, force: true })
    })

    const call = (as: Tenant, method: string, url: string, payload?: object) =>
      t.call({ as, method: method as InjectOptions['method'], url, payload })

    test('every route that names a resource has a row in the table, or an exception saying why', () => {
      const named = new Set(operations.filter((op) => pathParams(op).length > 0).map((op) => op.path))
      const unknown = [...named].filter(
        (path) =>
          !(path in ACCOUNT_RESOURCES) && !(path in NOT_ACCOUNT_RESOURCES) && !isPublicStatusRoute(path),
      )
      assert.deepEqual(unknown, [], 'add a row to ACCOUNT_RESOURCES in testing/account-resources.ts')
      const stale = [...Object.keys(ACCOUNT_RESOURCES), ...Object.keys(NOT_ACCOUNT_RESOURCES)].filter(
        (path) => !named.has(path),
      )
      assert.deepEqual(stale, [], 'rows of routes that no longer exist')
    })

    /** Makes `op`'s resource in the owner's account and calls `op` on it as the stranger: a 404 that changes nothing. */
    async function assertIsolated(op: ApiOperation, make: (a: ResourceMaker) => Promise<Made>) {
      const where = nameOf(op)
      const made = await make(a)
      const url = fill(op.path, made.ids)
      const readBack = fill(made.readBack ?? op.path, made.ids)
      const body = made.bodies?.[op.method as keyof NonNullable<Made['bodies']>]
      const write = !READS.has(op.method)
      const before = write ? await call(t.owner, 'GET', readBack) : undefined
      if (before)
        assert.equal(before.statusCode, 200, `${where}: its account reads ${readBack}: ${before.body}`)

      const res = await call(stranger, op.method, url, body)
      if (where in IDEMPOTENT_FOR_STRANGERS) {
        assert.equal(res.statusCode, 200, `${where} as another account: ${res.body}`)
      } else {
        assert.equal(res.statusCode, 404, `${where} as another account: ${res.body}`)
      }
      if (op.method !== 'HEAD' && !(where in IDEMPOTENT_FOR_STRANGERS)) {
        const error = json(res)
        assert.deepEqual(Object.keys(error).sort(), ['error', 'message', 'statusCode'], where)
        assert.deepEqual([error.statusCode, error.error], [404, 'Not Found'], where)
      }
      if (before) {
        const after = await call(t.owner, 'GET', readBack)
        assert.equal(after.body, before.body, `${where}: another account's call changed ${readBack}`)
      }
      // The same call by the resource's own account finds it (a 409 refuses for the resource's state, such
      // as cancelling a check with no run): the 404 above came from the account alone.
      const own = await call(t.owner, op.method, url, body)
      assert.ok(own.statusCode < 400 || own.statusCode === 409, `${where} as its account: ${own.body}`)
    }

    test("another account's ids are 404 on every operation, and its writes change nothing", async () => {
      const failures: string[] = []
      let checked = 0
      for (const op of operations) {
        const make = ACCOUNT_RESOURCES[op.path]
        if (!make) continue
        await assertIsolated(op, make).catch((error: Error) =>
          failures.push(error.message.split('\n')[0] ?? ''),
        )
        checked++
      }
      assert.deepEqual(failures, [])
      assert.ok(checked > 0, 'no operation names an account resource: is /openapi.json empty?')
    })

    test('a READ_ONLY key may not write, a READ_WRITE key may not do what needs ADMIN', async () => {
      const readOnly = await t.addUser('READ_ONLY')
      const readWrite = await t.addUser('READ_WRITE')
      const refused = { statusCode: 403, error: 'Forbidden' }
      const wrong: string[] = []
      for (const op of operations.filter(keyed)) {
        const where = nameOf(op)
        let url = op.path
        for (const param of pathParams(op)) url = url.replace(`{${param.name}}`, validPathValue(param.schema))
        for (const [who, key, mayNot] of [
          ['READ_ONLY', readOnly, !READS.has(op.method) && !(where in WRITES_ANY_ROLE)],
          ['READ_WRITE', readWrite, ADMIN_ONLY.includes(where)],
        ] as const) {
          const res = await call(key, op.method, url)
          const got = res.statusCode === 403 && op.method !== 'HEAD' ? json(res) : undefined
          const forbidden = got?.statusCode === refused.statusCode && got.error === refused.error
          if (forbidden !== mayNot) wrong.push(`${where} as ${who}: ${res.statusCode} ${res.body}`)
        }
      }
      assert.deepEqual(wrong, [])
      const known = new Set(operations.map(nameOf))
      assert.deepEqual(
        [...ADMIN_ONLY, ...Object.keys(WRITES_ANY_ROLE)].filter((name) => !known.has(name)),
        [],
        'role exceptions of operations that no longer exist',
      )
    })
  })
}
