import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { testEngines } from '@svc/db/testing'
import { listenOnLoopback } from '@svc/runner/testing'
import { createTestApp, json, ownerOfAnotherAccount, type TestApp } from '../../testing/test-app.ts'
import { storeSeedResult } from '../analytics/testing.ts'
import { pruneResults } from '../retention/retention.service.ts'

const MINUTE = 60_000

for (const engine of testEngines()) {
  describe(`error groups on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-08-01T12:00:00.000Z')
    const target = createServer((_request, response) => {
      response.statusCode = 500
      response.end('down')
    })
    let base = ''
    before(async () => {
      base = (await listenOnLoopback(target)).url
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(async () => {
      target.close()
      await t.close()
    })

    const newCheck = async (extra: object = {}) => {
      const res = await t.call({
        method: 'POST',
        url: '/v1/checks/url?autoAssignAlerts=false',
        payload: {
          name: 'shop',
          activated: false,
          locations: ['local', 'eu-west-1'],
          request: { url: `${base}/` },
          ...extra,
        },
      })
      assert.equal(res.statusCode, 201, res.body)
      return { id: json(res).id as string, accountId: t.owner.accountId, checkType: 'URL' }
    }
    const store = (
      check: { id: string; accountId: string; checkType: string },
      at: string,
      location: string,
      error: { type: string; message: string } | null,
    ) =>
      storeSeedResult(t.ctx, check, {
        atMs: Date.parse(at),
        location,
        failed: error !== null,
        responseTime: 100,
        errorType: error?.type ?? null,
        errorMessage: error?.message ?? null,
        statusCode: error ? 503 : 200,
        detail: { urlCheckResult: {} },
      })
    const groupsOf = async (checkId: string, query = '') => {
      const res = await t.call({ method: 'GET', url: `/v1/error-groups/checks/${checkId}${query}` })
      assert.equal(res.statusCode, 200, res.body)
      return { list: json(res), range: res.headers['content-range'] }
    }

    test('failures group by normalized error; resolved groups are archived and reopen on a new failure', async () => {
      const check = await newCheck()
      const refused = (ip: string) => ({
        type: 'NETWORK_ERROR',
        message: `Connection refused: connect ECONNREFUSED ${ip}:443`,
      })
      const first = await store(check, '2026-08-01T10:00:00Z', 'local', refused('10.0.0.1'))
      await store(check, '2026-08-01T10:01:00Z', 'eu-west-1', refused('10.0.0.7'))
      let { list } = await groupsOf(check.id)
      assert.equal(list.length, 1)
      const [group] = list
      assert.deepEqual(
        {
          count: group.count,
          firstSeen: group.firstSeen,
          lastSeen: group.lastSeen,
          locations: group.locations,
          failingLocations: group.failingLocations,
          cleaned: group.cleanedErrorMessage,
          raw: group.rawErrorMessage,
          type: group.errorType,
          archived: group.archived,
        },
        {
          count: 2,
          firstSeen: '2026-08-01T10:00:00.000Z',
          lastSeen: '2026-08-01T10:01:00.000Z',
          locations: ['eu-west-1', 'local'],
          failingLocations: ['eu-west-1', 'local'],
          cleaned: 'Connection refused: connect ECONNREFUSED <ip>',
          raw: 'Connection refused: connect ECONNREFUSED 10.0.0.7:443',
          type: 'NETWORK_ERROR',
          archived: false,
        },
      )
      assert.equal(group.sampleResult.runLocation, 'eu-west-1')
      assert.notEqual(group.sampleResultId, first)

      // local now fails differently: the refused group no longer fails there.
      await store(check, '2026-08-01T10:02:00Z', 'local', {
        type: 'ASSERTION',
        message: 'Status code 503 is not below 400',
      })
      // eu-west-1 passes: nothing fails with "refused" any more.
      await store(check, '2026-08-01T10:03:00Z', 'eu-west-1', null)
      ;({ list } = await groupsOf(check.id))
      assert.deepEqual(
        list.map((g: any) => [g.cleanedErrorMessage, g.archived, g.failingLocations, g.resolvedAt]),
        [
          ['Status code 503 is not below <n>', false, ['local'], null],
          ['Connection refused: connect ECONNREFUSED <ip>', true, [], '2026-08-01T10:03:00.000Z'],
        ],
      )
      assert.equal((await groupsOf(check.id, '?archived=false')).list.length, 1)

      // The same error again reopens its group.
      const again = await store(check, '2026-08-01T10:04:00Z', 'local', refused('10.0.0.9'))
      const reopened = json(await t.call({ method: 'GET', url: `/v1/error-groups/${group.id}` }))
      assert.equal(reopened.archived, false)
      assert.equal(reopened.archivedUntilNextEvent, false)
      assert.equal(reopened.resolvedAt, null)
      assert.equal(reopened.count, 3)
      assert.equal(reopened.sampleResultId, again)
      assert.deepEqual(reopened.failingLocations, ['local'])
      const statusGroup = (await groupsOf(check.id)).list.find((g: any) => g.errorType === 'ASSERTION')
      assert.equal(statusGroup.archived, true, 'local now fails with the other error')

      const page = await groupsOf(check.id, '?limit=1&page=2')
      assert.equal(page.list.length, 1)
      assert.equal(page.range, 'items 1-1/2')
    })

    test('a run through the real runner is grouped at once; shouldFail passes are failures too', async () => {
      const check = await newCheck()
      const run = await t.call({ method: 'POST', url: `/v1/checks/${check.id}/trigger` })
      assert.equal(json(run).hasFailures, true)
      const { list } = await groupsOf(check.id)
      assert.equal(list[0].rawErrorMessage, 'Status code 500 is not below 400')
      assert.equal(list[0].sampleResult.statusCode, 500)
      assert.equal(list[0].sampleResultId, json(run).id)

      const inverted = await newCheck({ shouldFail: true })
      await store(inverted, '2026-08-01T11:00:00Z', 'local', null)
      await storeSeedResult(t.ctx, inverted, {
        atMs: Date.parse('2026-08-01T11:01:00Z'),
        location: 'local',
        failed: true,
        responseTime: 10,
        errorType: null,
        errorMessage: null,
        detail: {},
      })
      const groups = (await groupsOf(inverted.id)).list
      assert.equal(groups[0].cleanedErrorMessage, 'The check passed but was expected to fail (shouldFail)')
    })

    test('other accounts see 404; groups go with their check and with old results', async () => {
      const check = await newCheck()
      await store(check, '2026-06-01T10:00:00Z', 'local', {
        type: 'TIMEOUT',
        message: 'The request timed out',
      })
      await store(check, '2026-06-01T10:05:00Z', 'local', null)
      await store(check, '2026-07-30T10:00:00Z', 'local', {
        type: 'TIMEOUT',
        message: 'Connecting timed out',
      })
      const { list } = await groupsOf(check.id)
      assert.equal(list.length, 2)
      const stranger = await ownerOfAnotherAccount(t)
      for (const url of [`/v1/error-groups/${list[0].id}`, `/v1/error-groups/checks/${check.id}`]) {
        assert.equal((await t.call({ method: 'GET', url, as: stranger })).statusCode, 404)
      }
      nowMs = Date.parse('2026-08-01T12:00:00.000Z') + MINUTE
      await pruneResults(t.ctx, 400)
      const kept = (await groupsOf(check.id)).list
      assert.deepEqual(
        kept.map((g: any) => g.cleanedErrorMessage),
        ['Connecting timed out'],
        'the archived June group went with its results',
      )
      await t.call({ method: 'DELETE', url: `/v1/checks/${check.id}` })
      assert.equal((await t.call({ method: 'GET', url: `/v1/error-groups/${kept[0].id}` })).statusCode, 404)
    })
  })
}
