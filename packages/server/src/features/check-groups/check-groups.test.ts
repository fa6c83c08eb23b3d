import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createScheduler } from '../../runs/scheduler.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`check groups and locations on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    test('group CRUD with defaults, masked variables and integer ids', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v1/check-groups',
        payload: {
          name: 'Checkout',
          locations: ['eu-west-1'],
          frequency: 5,
          tags: ['shop'],
          environmentVariables: [{ key: 'TOKEN', value: 'secret-token', locked: true }],
        },
      })
      assert.equal(res.statusCode, 201)
      const group = json(res)
      assert.equal(Number.isInteger(group.id), true)
      for (const [field, value] of Object.entries({
        activated: true,
        muted: false,
        frequency: 5,
        locations: ['eu-west-1'],
        tags: ['shop'],
        doubleCheck: true,
        useGlobalAlertSettings: true,
        runParallel: false,
        concurrency: 3,
        runtimeId: null,
        retryStrategy: null,
      })) {
        assert.deepEqual(group[field], value, field)
      }
      assert.deepEqual(group.environmentVariables, [
        { key: 'TOKEN', value: '***masked***', locked: true, secret: false },
      ])
      const row = await t.store.db.selectFrom('check_groups').select('definition').executeTakeFirstOrThrow()
      assert.equal(row.definition.includes('secret-token'), false)

      const updated = await t.call({
        method: 'PUT',
        url: `/v1/check-groups/${group.id}`,
        payload: {
          name: 'Checkout flow',
          activated: false,
          environmentVariables: group.environmentVariables,
        },
      })
      assert.equal(updated.statusCode, 200)
      assert.deepEqual(
        [json(updated).name, json(updated).activated, json(updated).frequency],
        ['Checkout flow', false, null],
      )
      const stored = JSON.parse(
        (await t.store.db.selectFrom('check_groups').select('definition').executeTakeFirstOrThrow())
          .definition,
      )
      assert.equal(t.ctx.secretBox.decrypt(stored.environmentVariables[0].sealedValue), 'secret-token')

      const list = await t.call({ method: 'GET', url: '/v1/check-groups' })
      assert.deepEqual(
        json(list).map((g: { id: number }) => g.id),
        [group.id],
      )
      assert.equal(list.headers['content-range'], 'items 0-0/1')
      assert.equal((await t.call({ method: 'GET', url: '/v1/check-groups/999999' })).statusCode, 404)
      assert.equal((await t.call({ method: 'GET', url: '/v1/check-groups/abc' })).statusCode, 400)
      // Group ids are 32-bit serials: a larger one is a 400 on either store, never a PostgreSQL 500.
      assert.equal((await t.call({ method: 'GET', url: '/v1/check-groups/2147483647' })).statusCode, 404)
      for (const [method, url] of [
        ['GET', '/v1/check-groups/2147483648'],
        ['PUT', '/v1/check-groups/2147483648'],
        ['DELETE', '/v1/check-groups/2147483648'],
        ['GET', '/v1/check-groups/2147483648/checks'],
        ['POST', '/v1/check-groups/2147483648/trigger'],
      ] as const) {
        const res = await t.call({ method, url, payload: method === 'PUT' ? { name: 'x' } : undefined })
        assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`)
        assert.equal(json(res).attributes.errors[0].path, 'params.id', `${method} ${url}`)
      }
      const unserved = await t.call({
        method: 'POST',
        url: '/v1/check-groups',
        payload: { name: 'x', locations: ['mars'] },
      })
      assert.equal(json(unserved).attributes.errors[0].path, 'body.locations')
    })

    test('checks join a group; a group holding checks cannot be deleted', async () => {
      const group = json(await t.call({ method: 'POST', url: '/v1/check-groups', payload: { name: 'API' } }))
      const check = json(
        await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name: 'In group', groupId: group.id, groupOrder: 2, request: { url: 'https://a.test' } },
        }),
      )
      assert.deepEqual([check.groupId, check.groupOrder], [group.id, 2])
      const members = json(await t.call({ method: 'GET', url: `/v1/check-groups/${group.id}/checks` }))
      assert.deepEqual(
        members.map((c: { id: string }) => c.id),
        [check.id],
      )
      const refused = await t.call({ method: 'DELETE', url: `/v1/check-groups/${group.id}` })
      assert.equal(refused.statusCode, 409)
      assert.equal(json(refused).error, 'Conflict')
      await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
      assert.equal((await t.call({ method: 'DELETE', url: `/v1/check-groups/${group.id}` })).statusCode, 204)
      assert.equal(
        (await t.call({ method: 'GET', url: `/v1/check-groups/${group.id}/checks` })).statusCode,
        404,
      )
    })

    test('GET /v1/locations lists the served data-center locations and whether a runner serves each', async () => {
      const locations = async () => json(await t.call({ method: 'GET', url: '/v1/locations' }))
      assert.deepEqual(await locations(), [
        { region: 'local', name: 'local', isDefault: true, runnerConnected: false },
        { region: 'eu-west-1', name: 'eu-west-1', isDefault: false, runnerConnected: false },
      ])
      const runner = createScheduler(t.ctx, { locations: ['eu-west-1', 'heartbeat'], concurrency: 1 })
      runner.start()
      try {
        let connected = false
        for (let i = 0; i < 100 && !connected; i++) {
          await new Promise((done) => setTimeout(done, 20))
          connected = (await locations())[1].runnerConnected
        }
        assert.equal(connected, true)
        assert.equal((await locations())[0].runnerConnected, false)
      } finally {
        await runner.stop()
      }
      assert.equal((await locations())[1].runnerConnected, false, 'a stopped runner is gone at once')
    })

    test('a secret group variable stays secret: sent back as non-secret is 400, never its value', async () => {
      const group = json(
        await t.call({
          method: 'POST',
          url: '/v1/check-groups',
          payload: {
            name: 'Secret group',
            environmentVariables: [{ key: 'TOKEN', value: 'group-sekrit', secret: true }],
          },
        }),
      )
      const res = await t.call({
        method: 'PUT',
        url: `/v1/check-groups/${group.id}`,
        payload: { name: 'Secret group', environmentVariables: [{ key: 'TOKEN', value: '***masked***' }] },
      })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(json(res).attributes.errors[0].path, 'body.environmentVariables.0.secret')
      const after = json(await t.call({ method: 'GET', url: `/v1/check-groups/${group.id}` }))
      assert.deepEqual(after.environmentVariables, [
        { key: 'TOKEN', value: '***masked***', locked: false, secret: true },
      ])
    })
  })
}
