import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'

for (const engine of testEngines()) {
  describe(`listing and archiving error groups on ${engine.engine}`, () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp(engine)
    })
    after(() => t.close())

    const call = async (method: string, url: string, payload?: object) => {
      const res = await t.call({ method: method as 'GET', url, payload })
      assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`)
      return json(res)
    }
    const failingCheck = async (name: string) => {
      const check = await t.call({
        method: 'POST',
        url: '/v1/checks/api',
        payload: { name, activated: false, request: { method: 'GET', url: 'http://127.0.0.1:9/' } },
      })
      const id = json(check).id as string
      await call('POST', `/v1/checks/${id}/trigger`)
      return id
    }

    test('GET /v1/error-groups lists the groups of every check of the account, and only those', async () => {
      const first = await failingCheck('one')
      const second = await failingCheck('two')
      const listed = await call('GET', '/v1/error-groups?limit=100')
      assert.deepEqual(listed.map((g: { checkId: string }) => g.checkId).sort(), [first, second].sort())
      const stranger = await ownerOfAnotherAccount(t)
      const theirs = await t.call({ method: 'GET', url: '/v1/error-groups', as: stranger })
      assert.deepEqual(json(theirs), [])
    })

    test('archivedUntilNextEvent archives a group until its error is seen again, and false reopens it', async () => {
      const checkId = await failingCheck('flaky')
      const [group] = await call('GET', `/v1/error-groups/checks/${checkId}`)
      assert.equal(group.archivedUntilNextEvent, false)
      const archived = await call('PATCH', `/v1/error-groups/${group.id}`, { archivedUntilNextEvent: true })
      assert.deepEqual([archived.archived, archived.archivedUntilNextEvent], [true, true])
      assert.deepEqual(
        await call('GET', `/v1/error-groups?archived=false&limit=100`).then((l) =>
          l.some((g: { id: string }) => g.id === group.id),
        ),
        false,
      )
      await call('POST', `/v1/checks/${checkId}/trigger`)
      const reopened = await call('GET', `/v1/error-groups/${group.id}`)
      assert.deepEqual([reopened.archivedUntilNextEvent, reopened.count], [false, 2])
      await call('PATCH', `/v1/error-groups/${group.id}`, { archivedUntilNextEvent: true })
      const open = await call('PATCH', `/v1/error-groups/${group.id}`, { archivedUntilNextEvent: false })
      assert.equal(open.archivedUntilNextEvent, false)
      const forever = await t.call({
        method: 'PATCH',
        url: `/v1/error-groups/${group.id}`,
        payload: { archiveForEver: true },
      })
      assert.equal(forever.statusCode, 400, forever.body)
      assert.equal(json(forever).attributes.errors[0].path, 'body.archiveForEver')
    })
  })
}
