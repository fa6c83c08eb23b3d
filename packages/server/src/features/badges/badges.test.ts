import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'
import * as accounts from '../accounts/accounts.service.ts'
import { storeSeedResult } from '../analytics/testing.ts'

const NOW = Date.parse('2026-11-22T12:00:00.000Z')
const HOUR = 3_600_000

/** Asserts `svg` is well-formed XML (every tag closed in order, attributes quoted, entities known) and answers its text. */
function wellFormedText(svg: string): string {
  const stack: string[] = []
  let text = ''
  const token = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy
  let match: RegExpExecArray | null
  let at = 0
  while (at < svg.length) {
    token.lastIndex = at
    match = token.exec(svg)
    assert.ok(match, `not well-formed at ${at}: ${svg.slice(at, at + 40)}`)
    const [whole, closing, name, , selfClosing, chars] = match
    if (chars !== undefined) {
      assert.doesNotMatch(chars, /&(?!(lt|gt|amp|quot|apos);)/, 'a bare ampersand')
      text += chars
    } else if (closing) assert.equal(stack.pop(), name, `</${name}> closes the open tag`)
    else if (!selfClosing) stack.push(name as string)
    at += whole.length
  }
  assert.deepEqual(stack, [], 'every tag is closed')
  assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'))
  return text
}

for (const engine of testEngines()) {
  describe(`badges on ${engine.engine}`, () => {
    let t: TestApp
    let groupId: number
    const ids: Record<string, string> = {}
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(NOW) } })
      const group = await t.call({
        method: 'POST',
        url: '/v1/check-groups',
        payload: { name: 'Shop & Co', concurrency: 1 },
      })
      groupId = json(group).id
      for (const [key, name] of [
        ['api', 'Public <API>'],
        ['web', 'Web'],
        ['new', 'Never ran'],
      ] as const) {
        const res = await t.call({
          method: 'POST',
          url: '/v1/checks/url',
          payload: { name, activated: false, groupId, request: { url: 'http://127.0.0.1:9/' } },
        })
        assert.equal(res.statusCode, 201, res.body)
        ids[key] = json(res).id
      }
      const seed = (key: string, hoursAgo: number, failed: boolean, responseTime: number) =>
        storeSeedResult(
          t.ctx,
          { id: ids[key] as string, accountId: t.owner.accountId, checkType: 'URL' },
          { atMs: NOW - hoursAgo * HOUR, location: 'local', failed, responseTime, detail: {} },
        )
      // API: 3 of 4 pass, the latest passes. Web: 1 of 2 pass, the latest fails.
      await seed('api', 4, true, 100)
      await seed('api', 3, false, 200)
      await seed('api', 2, false, 300)
      await seed('api', 1, false, 400)
      await seed('web', 2, false, 600)
      await seed('web', 1, true, 1000)
    })
    after(() => t.close())

    const badge = async (url: string) => {
      const res = await t.call({ method: 'GET', url, as: null })
      assert.equal(res.statusCode, 200, res.body)
      assert.match(String(res.headers['content-type']), /^image\/svg\+xml/)
      return res.body
    }

    test('a check badge shows its name, status and uptime with no key, well-formed', async () => {
      const svg = await badge(`/v1/badges/checks/${ids.api}`)
      assert.equal(
        wellFormedText(svg),
        'Public &lt;API&gt;: passing: 75% uptimePublic &lt;API&gt;passing75% uptime',
      )
      assert.match(svg, /fill="#44cc11"/)
      const web = await badge(`/v1/badges/checks/${ids.web}?responseTime=true&style=for-the-badge&theme=dark`)
      assert.equal(wellFormedText(web), 'WEB: FAILING: 50% UPTIME: 800 MSWEBFAILING50% UPTIME800 MS')
      assert.match(web, /height="28"/)
      assert.match(web, /fill="#e05d44"/)
      const fresh = await badge(`/v1/badges/checks/${ids.new}?responseTime=true&v=2`)
      assert.equal(
        wellFormedText(fresh),
        'Never ran: no data: no response timeNever ranno datano response time',
      )
      for (const style of ['flat', 'plastic', 'flat-square', 'for-the-badge', 'social']) {
        for (const theme of ['light', 'dark', 'default']) {
          wellFormedText(await badge(`/v1/badges/checks/${ids.api}?style=${style}&theme=${theme}`))
        }
      }
    })

    test("a group badge is failing when one check fails; it needs the group's account", async () => {
      const svg = await badge(`/v1/badges/groups/${groupId}?accountId=${t.owner.accountId}&responseTime=true`)
      // 4 of 6 results passed; response time weighted by results: (1000 + 1600) / 6.
      assert.equal(
        wellFormedText(svg),
        'Shop &amp; Co: failing: 66.67% uptime: 433 msShop &amp; Cofailing66.67% uptime433 ms',
      )
      const bare = await t.call({ method: 'GET', url: `/v1/badges/groups/${groupId}`, as: null })
      assert.equal(bare.statusCode, 404)
      assert.deepEqual(json(bare), {
        statusCode: 404,
        error: 'Not Found',
        message: `Check group ${groupId} not found`,
      })
      const other = await accounts.createAccount(t.ctx, { name: 'Other' })
      const wrong = await t.call({
        method: 'GET',
        url: `/v1/badges/groups/${groupId}?accountId=${other.id}`,
        as: null,
      })
      assert.equal(wrong.statusCode, 404)
      assert.deepEqual(json(wrong), json(bare), 'the same answer as no group at all')
      // As the hosted product's API clients call it: the id alone, with a key of the group's account.
      const keyed = await t.call({ method: 'GET', url: `/v1/badges/groups/${groupId}?responseTime=true` })
      assert.equal(keyed.statusCode, 200, keyed.body)
      assert.equal(keyed.body, svg)
      const stranger = await ownerOfAnotherAccount(t)
      const strangers = await t.call({ method: 'GET', url: `/v1/badges/groups/${groupId}`, as: stranger })
      assert.deepEqual(json(strangers), json(bare), "another account's key sees no group either")
      const badKey = await t.call({
        method: 'GET',
        url: `/v1/badges/groups/${groupId}`,
        as: null,
        headers: { authorization: 'Bearer not-a-key' },
      })
      assert.equal(badKey.statusCode, 401)
    })

    test('unknown ids are a 404 and bad options a 400, in the error shape', async () => {
      const missing = await t.call({
        method: 'GET',
        url: '/v1/badges/checks/00000000-0000-4000-8000-000000000000',
        as: null,
      })
      assert.equal(missing.statusCode, 404)
      assert.equal(json(missing).error, 'Not Found')
      const style = await t.call({ method: 'GET', url: `/v1/badges/checks/${ids.api}?style=round`, as: null })
      assert.equal(style.statusCode, 400)
      assert.equal(json(style).attributes.errors[0].path, 'querystring.style')
      const id = await t.call({ method: 'GET', url: '/v1/badges/checks/not-a-uuid', as: null })
      assert.equal(id.statusCode, 400)
    })
  })
}
