import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

const CHECKS = 250

/** More new checks than one creation batch holds (100), in groups, one of the last subscribed to a channel. */
function bigProject() {
  const groups = [0, 1, 2].map((g) => ({
    logicalId: `group-${g}`,
    type: 'check-group',
    member: true,
    payload: { name: `Group ${g}`, activated: true, tags: [`team-${g}`], locations: ['local'] },
  }))
  const checks = Array.from({ length: CHECKS }, (_, c) => ({
    logicalId: `check-${c}`,
    type: 'check',
    member: true,
    payload: {
      checkType: 'API',
      name: `Check ${c}`,
      activated: true,
      locations: ['local'],
      tags: [`n${c}`],
      groupId: { ref: `group-${c % 3}` },
      request: { method: 'GET', url: `http://127.0.0.1:9/${c}`, assertions: [] },
    },
  }))
  const channel = {
    logicalId: 'hook',
    type: 'alert-channel',
    member: true,
    payload: { type: 'WEBHOOK', config: { name: 'Hook', url: 'http://127.0.0.1:9/hook' } },
  }
  const subscription = {
    logicalId: 'hook-check-240',
    type: 'alert-channel-subscription',
    member: true,
    payload: { alertChannelId: { ref: 'hook' }, checkId: { ref: 'check-240' }, activated: true },
  }
  return {
    project: { logicalId: 'big', name: 'Big' },
    resources: [...checks, subscription, channel, ...groups],
  }
}

for (const engine of testEngines()) {
  describe(`a deploy of many new checks on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const deploy = async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v1/projects/deploy?scheduleOnDeploy=false',
        payload: bigProject(),
      })
      assert.equal(res.statusCode, 202, res.body)
      const done = await t.call({
        method: 'GET',
        url: `/v1/projects/big/deployments/${json(res).id}/completion?maxWaitSeconds=30`,
      })
      const deployment = json(done)
      assert.equal(deployment.status, 'SUCCEEDED', JSON.stringify(deployment.error))
      return deployment.result.diff as { logicalId: string; physicalId: string; action: string }[]
    }

    test('creates each in batches, binds each to its own id, resolves references to them', async () => {
      const diff = await deploy()
      const created = diff.filter((entry) => entry.logicalId.startsWith('check-'))
      assert.equal(created.length, CHECKS)
      assert.ok(created.every((entry) => entry.action === 'CREATE'))
      assert.equal(new Set(created.map((entry) => entry.physicalId)).size, CHECKS)
      for (const c of [0, 99, 100, 199, 249]) {
        const entry = created.find((e) => e.logicalId === `check-${c}`)
        const check = json(await t.call({ method: 'GET', url: `/v1/checks/${entry?.physicalId}` }))
        assert.equal(check.name, `Check ${c}`)
        assert.deepEqual(check.tags, [`n${c}`])
        assert.equal(check.projectBindings.owner.binding.logicalId, `check-${c}`)
      }
      const hook = diff.find((entry) => entry.logicalId === 'hook')
      const channel = json(await t.call({ method: 'GET', url: `/v1/alert-channels/${hook?.physicalId}` }))
      const subscribed = created.find((entry) => entry.logicalId === 'check-240')?.physicalId
      assert.deepEqual(
        channel.subscriptions.map((s: { checkId: string; activated: boolean }) => [s.checkId, s.activated]),
        [[subscribed, true]],
      )

      const again = await deploy()
      assert.ok(again.every((entry) => entry.action === 'UNCHANGED'))
      assert.deepEqual(
        again.map((entry) => [entry.logicalId, entry.physicalId]).sort(),
        diff.map((entry) => [entry.logicalId, entry.physicalId]).sort(),
      )
    })
  })
}
