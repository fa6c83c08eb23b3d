import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { SEALED_COLUMNS, sealedRowsAfter } from '../encryption-keys/encryption-keys.repo.ts'
import { plainValue } from '../variables/variables.service.ts'
import { openedRequest, sealPlainRequests } from './deployment-requests.ts'

const SECRET = 'tok-1-never-stored-plain'

/** A project of two account variables, one of them secret. */
function variablesProject(changes: { token?: string; baseKey?: string; tokenSecret?: boolean } = {}) {
  return {
    project: { logicalId: 'vars', name: 'Variables' },
    resources: [
      {
        logicalId: 'base-url',
        type: 'environment-variable',
        payload: { key: changes.baseKey ?? 'BASE_URL', value: 'https://shop.example', description: 'Shop' },
      },
      {
        logicalId: 'api-token',
        type: 'environment-variable',
        payload: { key: 'API_TOKEN', value: changes.token ?? SECRET, secret: changes.tokenSecret ?? true },
      },
    ],
  }
}

for (const engine of testEngines()) {
  describe(`account variables deploy on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const deploy = async (payload: object, query = '') => {
      const res = await t.call({
        method: 'POST',
        url: `/v1/projects/deploy?scheduleOnDeploy=false${query}`,
        payload,
      })
      return { res, body: json(res) }
    }
    const deployed = async (payload: object) => {
      const { body } = await deploy(payload)
      const res = await t.call({
        method: 'GET',
        url: `/v1/projects/vars/deployments/${body.id}/completion?maxWaitSeconds=30`,
      })
      const done = json(res)
      assert.equal(done.status, 'SUCCEEDED', JSON.stringify(done.error))
      return done.result.diff as { logicalId: string; action: string; changes?: string[] }[]
    }
    const actions = (diff: { logicalId: string; action: string }[]) =>
      Object.fromEntries(diff.map((entry) => [entry.logicalId, entry.action]))
    const rows = () => t.store.db.selectFrom('variables').selectAll().orderBy('key').execute()
    const storedValueOf = async (key: string) => {
      const row = (await rows()).find((r) => r.key === key)
      return row ? plainValue(t.ctx, row) : undefined
    }

    test('variables deploy by key; a secret is kept out of the bindings and the deployment rows', async () => {
      const preview = await deploy(variablesProject(), '&dryRun=true')
      assert.equal(preview.res.statusCode, 200, preview.res.body)
      assert.deepEqual(actions(preview.body.diff), { 'base-url': 'CREATE', 'api-token': 'CREATE' })
      assert.deepEqual(actions(await deployed(variablesProject())), {
        'base-url': 'CREATE',
        'api-token': 'CREATE',
      })
      const base = json(await t.call({ method: 'GET', url: '/v1/variables/BASE_URL' }))
      assert.deepEqual([base.value, base.description, base.secret], ['https://shop.example', 'Shop', false])
      const token = json(await t.call({ method: 'GET', url: '/v1/variables/API_TOKEN' }))
      assert.deepEqual([token.value, token.secret], ['***masked***', true])
      assert.equal(await storedValueOf('API_TOKEN'), SECRET)

      const bindings = await t.store.db.selectFrom('project_resources').select('payload').execute()
      const requests = await t.store.db.selectFrom('deployments').select('request').execute()
      const stored = JSON.stringify([bindings, requests])
      assert.equal(stored.includes(SECRET), false)
      assert.equal(stored.includes('https://shop.example'), true)
    })

    test('the same project again changes nothing; a new secret value is an update of that field', async () => {
      const before = await rows()
      assert.deepEqual(actions(await deployed(variablesProject())), {
        'base-url': 'UNCHANGED',
        'api-token': 'UNCHANGED',
      })
      assert.deepEqual(await rows(), before)

      const diff = await deployed(variablesProject({ token: 'tok-2' }))
      assert.deepEqual(Object.fromEntries(diff.map((e) => [e.logicalId, [e.action, e.changes]])), {
        'api-token': ['UPDATE', ['value']],
        'base-url': ['UNCHANGED', undefined],
      })
      assert.equal(await storedValueOf('API_TOKEN'), 'tok-2')
    })

    test('a new key or an unset secret makes the variable anew; a bad key fails naming the field', async () => {
      const renamed = variablesProject({ baseKey: 'HOME_URL', token: 'tok-2', tokenSecret: false })
      assert.deepEqual(actions(await deployed(renamed)), { 'base-url': 'CREATE', 'api-token': 'CREATE' })
      assert.deepEqual(
        (await rows()).map((r) => [r.key, Boolean(r.secret)]),
        [
          ['API_TOKEN', false],
          ['HOME_URL', false],
        ],
      )
      assert.equal(json(await t.call({ method: 'GET', url: '/v1/variables/API_TOKEN' })).value, 'tok-2')

      const bad = variablesProject({ baseKey: '1-not-a-key' })
      const preview = await deploy(bad, '&dryRun=true')
      assert.equal(preview.res.statusCode, 400)
      assert.match(preview.body.message, /resources\.0\.payload\.key/)
    })

    test("a variable the project doesn't own keeps its key: the deploy fails and applies nothing", async () => {
      const other = { project: { logicalId: 'other', name: 'Other' }, resources: [] }
      const taken = {
        ...other,
        resources: [
          { logicalId: 'x', type: 'environment-variable', payload: { key: 'HOME_URL', value: 'x' } },
        ],
      }
      const { body } = await deploy(taken)
      const res = await t.call({
        method: 'GET',
        url: `/v1/projects/other/deployments/${body.id}/completion?maxWaitSeconds=30`,
      })
      const done = json(res)
      assert.equal(done.status, 'FAILED')
      assert.match(done.error.message, /HOME_URL exists already/)
      assert.equal(await storedValueOf('HOME_URL'), 'https://shop.example')
    })

    test('destroying the project deletes its variables', async () => {
      const { id } = json(await t.call({ method: 'DELETE', url: '/v1/projects/vars' }))
      const res = await t.call({
        method: 'GET',
        url: `/v1/projects/vars/deployments/${id}/completion?maxWaitSeconds=30`,
      })
      assert.equal(json(res).status, 'SUCCEEDED')
      assert.deepEqual(await rows(), [])
    })

    test('a request stored in the clear before requests were sealed is sealed at start, once', async () => {
      const request = { payload: variablesProject(), options: { scheduleOnDeploy: false } }
      const plain = JSON.stringify(request)
      const at = new Date(0).toISOString()
      const row = {
        account_id: t.owner.accountId,
        project_logical_id: 'legacy',
        kind: 'DEPLOY',
        status: 'PENDING',
        result: null,
        error: null,
        lease_until: at,
        created_at: at,
        updated_at: at,
        finished_at: null,
      }
      await t.store.db
        .insertInto('deployments')
        .values([
          { ...row, id: 'legacy-plain', request: plain },
          { ...row, id: 'legacy-done', request: null, status: 'SUCCEEDED' },
        ])
        .execute()

      assert.equal(await sealPlainRequests(t.ctx), 1)
      const stored = await t.store.db
        .selectFrom('deployments')
        .select(['id', 'request'])
        .where('id', 'in', ['legacy-plain', 'legacy-done'])
        .orderBy('id')
        .execute()
      assert.equal(stored[0]?.request, null)
      const sealed = stored[1]?.request ?? ''
      assert.equal(sealed.includes(SECRET), false)
      assert.deepEqual(openedRequest(t.ctx, sealed), request)
      // Key rotation finds it among the sealed values.
      const place = SEALED_COLUMNS.find((column) => column.table === 'deployments')
      assert.ok(place)
      const rotated = await sealedRowsAfter(t.ctx, place, undefined, 1000)
      assert.ok(rotated.some((r) => r.id === 'legacy-plain'))
      assert.equal(await sealPlainRequests(t.ctx), 0)
      await t.store.db.deleteFrom('deployments').where('project_logical_id', '=', 'legacy').execute()
    })
  })
}
