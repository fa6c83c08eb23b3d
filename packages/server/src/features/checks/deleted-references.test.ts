import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { holdingTable, inTurnWhileHeld } from '../../testing/held-lock.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'

/**
 * What a check or group names (alert channels, its group, private locations, a status-page service)
 * deleted while it is saved: on PostgreSQL the requests run at once, in the order each test forces
 * (see inTurnWhileHeld). Either the save waits and answers the 400 of an unknown reference, saving
 * nothing, or the deletion waits and sees what the save made.
 */
for (const engine of testEngines()) {
  describe(`references deleted while checks and groups are saved on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const created = async (url: string, payload: object) => {
      const res = await t.call({ method: 'POST', url, payload })
      // A service is created with 200, as the hosted API answers it.
      assert.equal(res.statusCode, url === '/v1/status-pages/services' ? 200 : 201, res.body)
      return json(res)
    }
    const TCP = { activated: false, request: { hostname: '127.0.0.1', port: 9 } }
    const check = (name: string) => created('/v1/checks/tcp', { name, ...TCP })
    const group = (name: string) => created('/v1/check-groups', { name, locations: ['local'] })
    const channel = () =>
      created('/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } })
    const location = (slug: string) => created('/v1/private-locations', { name: slug, slugName: slug })
    const service = (name: string) => created('/v1/status-pages/services', { name })
    const read = async (url: string) => json(await t.call({ method: 'GET', url }))
    const checksNamed = async (name: string) =>
      (await t.store.db.selectFrom('checks').select('id').where('name', '=', name).execute()).length
    const putCheck = (id: string, payload: object) => () =>
      t.call({ method: 'PUT', url: `/v1/checks/${id}`, payload })
    const postCheck = (payload: object) => () =>
      t.call({ method: 'POST', url: '/v1/checks/tcp', payload: { ...TCP, ...payload } })
    const putGroup = (id: number, payload: object) => () =>
      t.call({ method: 'PUT', url: `/v1/check-groups/${id}`, payload: { locations: ['local'], ...payload } })
    const remove = (url: string) => () => t.call({ method: 'DELETE', url })
    type Answer = Awaited<ReturnType<TestApp['call']>>
    const statuses = (answers: Answer[]) => answers.map((res) => res.statusCode)
    const messages = (answers: Answer[]) => answers.map((res) => json(res).message)

    test('an alert channel deleted while checks and groups subscribe to it: 400, nothing saved', async () => {
      const gone = await channel()
      const kept = await check('kept')
      const grouped = await group('kept group')
      const subscriptions = [{ alertChannelId: gone.id, activated: true }]
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('alert_notifications'), [
        remove(`/v1/alert-channels/${gone.id}`),
        putCheck(kept.id, { name: 'Renamed', alertChannelSubscriptions: subscriptions }),
        postCheck({ name: 'New', alertChannelSubscriptions: subscriptions }),
        putGroup(grouped.id, { name: 'Renamed group', alertChannelSubscriptions: subscriptions }),
      ])
      assert.deepEqual(statuses(answers), [204, 400, 400, 400], answers.map((res) => res.body).join('\n'))
      assert.deepEqual(
        messages(answers.slice(1)),
        Array(3).fill(`body.alertChannelSubscriptions unknown alert channel ${gone.id}`),
      )
      assert.equal((await read(`/v1/checks/${kept.id}`)).name, 'kept')
      assert.equal((await read(`/v1/check-groups/${grouped.id}`)).name, 'kept group')
      assert.equal(await checksNamed('New'), 0)
    })

    test('a group deleted while checks are saved into it: 400, nothing saved', async () => {
      const gone = await group('gone group')
      const kept = await check('kept out')
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('alert_subscriptions'), [
        remove(`/v1/check-groups/${gone.id}`),
        putCheck(kept.id, { name: 'Moved', groupId: gone.id }),
        postCheck({ name: 'New in group', groupId: gone.id }),
      ])
      assert.deepEqual(statuses(answers), [204, 400, 400], answers.map((res) => res.body).join('\n'))
      assert.deepEqual(
        messages(answers.slice(1)),
        Array(2).fill(`body.groupId check group ${gone.id} not found`),
      )
      const after = await read(`/v1/checks/${kept.id}`)
      assert.deepEqual([after.name, after.groupId], ['kept out', null])
      assert.equal(await checksNamed('New in group'), 0)
    })

    test('a group deleted while a check is created in it: the deletion waits and is 409', async () => {
      const busy = await group('busy group')
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('check_tags'), [
        postCheck({ name: 'Joins', groupId: busy.id, tags: ['joins'] }),
        remove(`/v1/check-groups/${busy.id}`),
      ])
      assert.deepEqual(statuses(answers), [201, 409], answers.map((res) => res.body).join('\n'))
      assert.equal(
        json(answers[1]!).message,
        `Check group ${busy.id} still holds 1 check(s): move or delete them first`,
      )
      assert.equal((await read(`/v1/checks/${json(answers[0]!).id}`)).groupId, busy.id)
    })

    test('a private location deleted while checks and groups are assigned to it: 400, nothing saved', async () => {
      const gone = await location('gone-place')
      const kept = await check('kept here')
      const grouped = await group('kept group here')
      const places = { privateLocations: ['gone-place'] }
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('agent_events'), [
        remove(`/v1/private-locations/${gone.id}`),
        putCheck(kept.id, { name: 'Moved', ...places }),
        postCheck({ name: 'New there', ...places }),
        putGroup(grouped.id, { name: 'Moved group', ...places }),
      ])
      assert.deepEqual(statuses(answers), [204, 400, 400, 400], answers.map((res) => res.body).join('\n'))
      assert.deepEqual(
        messages(answers.slice(1)),
        Array(3).fill('body.privateLocations unknown private location gone-place'),
      )
      const after = await read(`/v1/checks/${kept.id}`)
      assert.deepEqual([after.name, after.privateLocations], ['kept here', []])
      assert.equal((await read(`/v1/check-groups/${grouped.id}`)).name, 'kept group here')
      assert.equal(await checksNamed('New there'), 0)
    })

    test('a private location deleted or renamed while a check is assigned to it: that waits and is 409', async () => {
      const busy = await location('busy-place')
      const assigned = await check('assigned')
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('check_tags'), [
        putCheck(assigned.id, { privateLocations: ['busy-place'], tags: ['moved'] }),
        remove(`/v1/private-locations/${busy.id}`),
        () =>
          t.call({
            method: 'PUT',
            url: `/v1/private-locations/${busy.id}`,
            payload: { name: 'busy', slugName: 'renamed-place' },
          }),
      ])
      assert.deepEqual(statuses(answers), [200, 409, 409], answers.map((res) => res.body).join('\n'))
      assert.deepEqual(messages(answers.slice(1)), [
        "Can't delete private location busy-place: 1 check(s) and 0 group(s) run there; move them first",
        "Can't change the slugName of private location busy-place: 1 check(s) and 0 group(s) run there; move them first",
      ])
      assert.equal((await read(`/v1/private-locations/${busy.id}`)).slugName, 'busy-place')
    })

    test('a check, group, service or private location changed or deleted while it is deleted: 404 after', async () => {
      const doomedCheck = await check('doomed')
      const doomedGroup = await group('doomed group')
      const doomedService = await service('doomed service')
      const doomedPlace = await location('doomed-place')
      const cases = [
        {
          url: `/v1/checks/${doomedCheck.id}`,
          held: 'check_tags',
          put: { name: 'Changed' },
          gone: `Check ${doomedCheck.id} not found`,
        },
        {
          url: `/v1/check-groups/${doomedGroup.id}`,
          held: 'alert_subscriptions',
          put: { name: 'Changed', locations: ['local'] },
          gone: `Check group ${doomedGroup.id} not found`,
        },
        {
          url: `/v1/status-pages/services/${doomedService.id}`,
          held: 'incident_component_impacts',
          put: { name: 'Changed' },
          gone: `Service ${doomedService.id} not found`,
        },
        {
          url: `/v1/private-locations/${doomedPlace.id}`,
          held: 'agent_events',
          put: { name: 'Changed', slugName: 'doomed-place' },
          gone: `Private location ${doomedPlace.id} not found`,
        },
      ]
      for (const { url, held, put, gone } of cases) {
        const answers = await inTurnWhileHeld(t.ctx, holdingTable(held), [
          remove(url),
          () => t.call({ method: 'PUT', url, payload: put }),
          remove(url),
        ])
        assert.deepEqual(
          statuses(answers),
          [204, 404, 404],
          `${url}: ${answers.map((res) => res.body).join('\n')}`,
        )
        assert.deepEqual(messages(answers.slice(1)), [gone, gone], url)
      }
    })

    test("a check deleted while its group is updated: the group's update still saves and plans its other checks", async () => {
      const saved = await group('replanned')
      const ACTIVE = { ...TCP, activated: true, groupId: saved.id }
      const gone = await created('/v1/checks/tcp', { name: 'deleted in group', ...ACTIVE })
      const staying = await created('/v1/checks/tcp', { name: 'stays in group', ...ACTIVE })
      const answers = await inTurnWhileHeld(t.ctx, holdingTable('check_tags'), [
        remove(`/v1/checks/${gone.id}`),
        putGroup(saved.id, { name: 'Replanned', locations: ['local', 'eu-west-1'] }),
      ])
      assert.deepEqual(statuses(answers), [204, 200], answers.map((res) => res.body).join('\n'))
      assert.equal((await read(`/v1/check-groups/${saved.id}`)).name, 'Replanned')
      const planned = await t.store.db
        .selectFrom('check_schedules')
        .select(['check_id', 'location'])
        .where('check_id', 'in', [gone.id, staying.id])
        .orderBy('location')
        .execute()
      assert.deepEqual(
        planned.map((row) => [row.check_id, row.location]),
        [
          [staying.id, 'eu-west-1'],
          [staying.id, 'local'],
        ],
      )
    })

    test("a service deleted while a check's triggerIncident names it: 400 when the deletion went first, 409 when the check did", async () => {
      const trigger = (serviceId: string) => ({
        triggerIncident: {
          serviceId,
          severity: 'MAJOR',
          name: 'Down',
          description: 'Investigating',
          notifySubscribers: false,
        },
      })
      const gone = await service('gone service')
      const kept = await check('triggers nothing')
      const first = await inTurnWhileHeld(t.ctx, holdingTable('incident_component_impacts'), [
        remove(`/v1/status-pages/services/${gone.id}`),
        putCheck(kept.id, { name: 'Triggers', ...trigger(gone.id) }),
        postCheck({ name: 'New trigger', ...trigger(gone.id) }),
      ])
      assert.deepEqual(statuses(first), [204, 400, 400], first.map((res) => res.body).join('\n'))
      assert.deepEqual(
        messages(first.slice(1)),
        Array(2).fill(`body.triggerIncident.serviceId unknown service ${gone.id}`),
      )
      const after = await read(`/v1/checks/${kept.id}`)
      assert.deepEqual([after.name, after.triggerIncident], ['triggers nothing', null])
      assert.equal(await checksNamed('New trigger'), 0)

      const busy = await service('busy service')
      const second = await inTurnWhileHeld(t.ctx, holdingTable('check_tags'), [
        putCheck(kept.id, { ...trigger(busy.id), tags: ['triggers'] }),
        remove(`/v1/status-pages/services/${busy.id}`),
      ])
      assert.deepEqual(statuses(second), [200, 409], second.map((res) => res.body).join('\n'))
      assert.equal(
        json(second[1]!).message,
        `Service ${busy.id} is named by the triggerIncident of 1 check(s): change or remove it there first`,
      )
    })
  })
}
