import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { CHECK_BODIES, type CheckType } from '@svc/core'
import { testEngines } from '@svc/db/testing'
import { compileValidator } from '../../http/validation.ts'
import { listSchedule } from '../../runs/schedules.repo.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import { createChecks } from './check-creation.service.ts'
import { createCheck, getCheck } from './checks.service.ts'

const NOW = Date.parse('2026-11-29T12:00:00.000Z')

/** A body as a route takes it: its schema's defaults filled in; `sentFields` what the client sent. */
function newCheck(checkType: CheckType, sent: Record<string, unknown>) {
  const body = structuredClone(sent)
  const error = compileValidator(CHECK_BODIES[checkType])(body, 'body')
  if (error) throw error
  return { checkType, body, sentFields: new Set(Object.keys(sent)) }
}

/** What a check is after its creation, without what differs between any two checks (ids, tokens). */
async function stored(t: TestApp, id: string) {
  const found = (await getCheck(t.ctx, t.owner.accountId, id)) as unknown as Record<string, unknown>
  const { id: _id, createdAt, updatedAt, pingToken, pingUrl, ...check } = found
  const heartbeat = check.heartbeat as Record<string, unknown> | undefined
  if (heartbeat) check.heartbeat = { ...heartbeat, pingToken: undefined, pingUrl: undefined }
  const schedule = (await listSchedule(t.ctx, id)).map((row) => row.location).sort()
  return { check, schedule, hasToken: typeof pingToken === 'string' }
}

for (const engine of testEngines()) {
  describe(`creating many checks at once on ${engine.engine}`, () => {
    let t: TestApp
    let bodies: { checkType: CheckType; body: Record<string, unknown> }[]
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(NOW) } })
      const post = async (url: string, payload: object) => {
        const res = await t.call({ method: 'POST', url, payload })
        assert.ok(res.statusCode < 300, res.body)
        return json(res)
      }
      const group = await post('/v1/check-groups', { name: 'Shop', tags: ['shop'], locations: ['local'] })
      const auto = await post('/v1/alert-channels', {
        type: 'EMAIL',
        config: { address: 'ops@example.com' },
        autoSubscribe: true,
      })
      const named = await post('/v1/alert-channels', {
        type: 'EMAIL',
        config: { address: 'dev@example.com' },
      })
      await post('/v1/private-locations', { name: 'Office', slugName: 'office' })
      await post('/v1/variables', { key: 'BASE_URL', value: 'http://127.0.0.1:9' })
      const request = { method: 'GET', url: '{{BASE_URL}}/health', assertions: [] }
      bodies = [
        {
          checkType: 'API',
          body: { name: 'In group', groupId: group.id, tags: ['a', 'a', 'b'], request, locations: ['local'] },
        },
        {
          checkType: 'API',
          body: {
            name: 'Private',
            request,
            locations: [],
            privateLocations: ['office'],
            alertChannelSubscriptions: [{ alertChannelId: named.id, activated: false }],
          },
        },
        {
          checkType: 'URL',
          body: { name: 'Off', activated: false, request: { url: 'http://127.0.0.1:9/' } },
        },
        {
          checkType: 'HEARTBEAT',
          body: {
            name: 'Beat',
            heartbeat: { period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes' },
          },
        },
      ]
      assert.ok(auto.id)
    })
    after(() => t?.close())

    test('each is stored as createCheck stores it (tags, group, subscriptions, variables, schedule)', async () => {
      const alone: Awaited<ReturnType<typeof stored>>[] = []
      for (const sent of bodies) {
        const { checkType, body, sentFields } = newCheck(sent.checkType, sent.body)
        const created = await createCheck(t.ctx, t.owner.accountId, checkType, body, {
          sentFields,
          autoAssignAlerts: false,
        })
        alone.push(await stored(t, created.id))
      }
      const ids = await createChecks(
        t.ctx,
        t.owner.accountId,
        bodies.map(({ checkType, body }) => newCheck(checkType, body)),
        { autoAssignAlerts: false },
      )
      assert.equal(new Set(ids).size, bodies.length)
      const together = await Promise.all(ids.map((id) => stored(t, id)))
      assert.deepEqual(together, alone)
      // What the comparison covers, so it can't pass on two empty answers.
      assert.deepEqual(together[0]?.check.tags, ['a', 'b'])
      assert.equal(typeof together[0]?.check.groupId, 'number')
      assert.deepEqual(together[0]?.schedule, ['local'])
      const subscriptions = together[1]?.check.alertChannelSubscriptions as { activated: boolean }[]
      assert.deepEqual(subscriptions.map((s) => s.activated).sort(), [false, true])
      assert.deepEqual(together[2]?.schedule, [])
      assert.deepEqual(together[3]?.schedule, ['heartbeat'])
      assert.equal(together[3]?.hasToken, true)
      const variable = json(await t.call({ method: 'GET', url: '/v1/variables/BASE_URL' }))
      assert.deepEqual(variable.usage, { checksCount: 4, checkGroupsCount: 0 })
    })

    test('a check naming a group that does not exist saves none of them, with the field named', async () => {
      const before = json(await t.call({ method: 'GET', url: '/v1/checks?limit=100' })).length
      const request = { method: 'GET', url: 'http://127.0.0.1:9/', assertions: [] }
      await assert.rejects(
        createChecks(
          t.ctx,
          t.owner.accountId,
          [
            newCheck('API', { name: 'Fine', request }),
            newCheck('API', { name: 'Lost', request, groupId: 987654 }),
          ],
          { autoAssignAlerts: false },
        ),
        /body\.groupId.*check group 987654 not found/,
      )
      assert.equal(json(await t.call({ method: 'GET', url: '/v1/checks?limit=100' })).length, before)
    })
  })
}
