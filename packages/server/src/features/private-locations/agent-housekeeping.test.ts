import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AgentEventsTable } from '@svc/db'
import { testEngines } from '@svc/db/testing'
import { asAgent } from '../../testing/agent-locations.ts'
import { createTestApp, json, type TestApp } from '../../testing/test-app.ts'
import * as accounts from '../accounts/accounts.service.ts'
import { AGENT_ERRORS_PER_WINDOW } from '../agent-protocol/agent-protocol.routes.ts'
import {
  AGENT_EVENTS_KEPT,
  CRASHED_AGENT_KEPT_MS,
  createLocation,
  pruneAgentRecords,
} from './private-locations.service.ts'

/** Agents pick UUIDs as their ids: agent n. */
const agent = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
const DAY = 86_400_000
const HOUR = 3_600_000
const event = {
  message: 'boom',
  stack: 'Error: boom',
  agentVersion: '1.0.0',
  platform: 'linux-x64',
  runtimeVersion: 'v24.9.0',
}

for (const engine of testEngines()) {
  describe(`agent housekeeping on ${engine.engine}`, () => {
    let t: TestApp
    let nowMs = Date.parse('2026-11-23T08:00:00.000Z')
    before(async () => {
      t = await createTestApp(engine, { clock: { now: () => new Date(nowMs) } })
    })
    after(() => t.close())

    const locationWithKey = async (slugName: string) => {
      const location = json(
        await t.call({ method: 'POST', url: '/v1/private-locations', payload: { name: slugName, slugName } }),
      )
      const newKey = async () =>
        json(await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }))
          .rawKey as string
      return { id: location.id as string, rawKey: await newKey(), newKey }
    }
    const heartbeat = async (key: string, agentId: string) => {
      const beat = await asAgent(t, key, agentId, {
        method: 'POST',
        url: '/agent/v1/heartbeat',
        payload: { version: '1.0.0', hostname: agentId, runningJobs: 0 },
      })
      assert.equal(beat.statusCode, 200)
    }
    const shown = async (id: string) => {
      const { lastSeenAt, healthy, agents } = json(
        await t.call({ method: 'GET', url: `/v1/private-locations/${id}` }),
      )
      return { lastSeenAt, healthy, agents: agents.map((row: { id: string }) => row.id) }
    }
    const agentRows = async () =>
      (await t.ctx.db.selectFrom('agents').select(['private_location_id', 'id']).orderBy('id').execute()).map(
        (row) => `${row.private_location_id}/${row.id}`,
      )
    const eventIds = async (locationId: string) =>
      (
        await t.ctx.db
          .selectFrom('agent_events')
          .select('id')
          .where('private_location_id', '=', locationId)
          .orderBy('id')
          .execute()
      ).map((row) => row.id)
    const eventRow = (locationId: string, id: string, createdMs: number): AgentEventsTable => ({
      id,
      private_location_id: locationId,
      agent_id: 'a',
      message: 'boom',
      stack: null,
      agent_version: '1.0.0',
      platform: 'linux-x64',
      runtime_version: 'v24.9.0',
      created_at: new Date(createdMs).toISOString(),
    })

    test('crashed agents’ rows go a day after they were last seen; what locations show stays as it was', async () => {
      const start = nowMs
      const a = await locationWithKey('crashes')
      const b = await locationWithKey('says-goodbye')
      await heartbeat(a.rawKey, agent(1))
      await heartbeat(b.rawKey, agent(11))
      nowMs = start + HOUR
      await heartbeat(a.rawKey, agent(2))
      nowMs = start + 2 * HOUR
      await heartbeat(b.rawKey, agent(12))
      assert.equal(
        (await asAgent(t, b.rawKey, agent(12), { method: 'DELETE', url: '/agent/v1/heartbeat' })).statusCode,
        204,
      )

      nowMs = start + CRASHED_AGENT_KEPT_MS + 30 * 60_000
      const before = [await shown(a.id), await shown(b.id)]
      assert.deepEqual(before, [
        { lastSeenAt: new Date(start + HOUR).toISOString(), healthy: false, agents: [] },
        { lastSeenAt: new Date(start + 2 * HOUR).toISOString(), healthy: false, agents: [] },
      ])
      assert.deepEqual(
        await pruneAgentRecords(t.ctx, 400),
        { events: 0, agents: 2 },
        'agents 1 and 11, a day old',
      )
      assert.deepEqual(await agentRows(), [`${a.id}/${agent(2)}`])
      assert.deepEqual([await shown(a.id), await shown(b.id)], before)

      nowMs = start + 2 * DAY
      await heartbeat(b.rawKey, agent(13))
      assert.deepEqual(
        await pruneAgentRecords(t.ctx, 400),
        { events: 0, agents: 1 },
        'agent 2; agent 13 is live',
      )
      assert.deepEqual(await agentRows(), [`${b.id}/${agent(13)}`])
      assert.deepEqual(await shown(a.id), before[0], 'the latest of its crashed agents, kept by the location')
      assert.deepEqual(await shown(b.id), {
        lastSeenAt: new Date(nowMs).toISOString(),
        healthy: true,
        agents: [agent(13)],
      })
      assert.equal(await pruneAgentRecords(t.ctx, 400).then((pruned) => pruned.agents), 0, 'nothing more')

      // A pruned agent that comes back is an agent again.
      await heartbeat(a.rawKey, agent(1))
      assert.deepEqual(await shown(a.id), {
        lastSeenAt: new Date(nowMs).toISOString(),
        healthy: true,
        agents: [agent(1)],
      })
    })

    test('error events go after their account’s result retention (capped by the deployment’s); each location keeps its newest', async () => {
      const mine = await locationWithKey('events')
      const other = await accounts.createAccount(t.ctx, { name: 'Other account' })
      const theirs = await createLocation(t.ctx, other.id, { name: 'theirs', slugName: 'theirs' })
      for (const [id, ageDays] of [
        ['old', 40],
        ['month', 20],
        ['new', 5],
      ] as const) {
        await t.ctx.db
          .insertInto('agent_events')
          .values([
            eventRow(mine.id, `mine-${id}`, nowMs - ageDays * DAY),
            eventRow(theirs.id, `theirs-${id}`, nowMs - ageDays * DAY),
          ])
          .execute()
      }
      assert.equal((await pruneAgentRecords(t.ctx, 400)).events, 2, 'the default 30 days, in both accounts')
      assert.deepEqual(await eventIds(mine.id), ['mine-month', 'mine-new'])
      await t.call({
        method: 'PATCH',
        url: '/v1/accounts/me',
        payload: { settings: { resultRetentionDays: 10 } },
      })
      assert.equal((await pruneAgentRecords(t.ctx, 400)).events, 1, 'only the account that keeps 10 days')
      assert.deepEqual(await eventIds(mine.id), ['mine-new'])
      assert.deepEqual(await eventIds(theirs.id), ['theirs-month', 'theirs-new'])
      assert.equal((await pruneAgentRecords(t.ctx, 7)).events, 1, 'the deployment cap wins over 30 days')
      assert.deepEqual(await eventIds(theirs.id), ['theirs-new'])

      // A crash loop within the retention: the newest are kept, the oldest go, other locations' stay.
      const flood = Array.from({ length: AGENT_EVENTS_KEPT + 3 }, (_, i) =>
        eventRow(mine.id, `flood-${String(i).padStart(5, '0')}`, nowMs - (AGENT_EVENTS_KEPT + 3 - i) * 1000),
      )
      for (let i = 0; i < flood.length; i += 200) {
        await t.ctx.db
          .insertInto('agent_events')
          .values(flood.slice(i, i + 200))
          .execute()
      }
      assert.equal(
        (await pruneAgentRecords(t.ctx, 400)).events,
        4,
        'the 5-day-old event and the 3 oldest of the flood',
      )
      assert.deepEqual(
        await eventIds(mine.id),
        flood.slice(3).map((row) => row.id),
      )
      assert.deepEqual(await eventIds(theirs.id), ['theirs-new'])
    })

    test('POST /agent/v1/errors: a location’s agents may report 60 per 60 s, then 429 until the window ends', async () => {
      const loc = await locationWithKey('noisy')
      const secondKey = await loc.newKey()
      const quiet = await locationWithKey('quiet')
      const report = (key: string, agentId = agent(21)) =>
        asAgent(t, key, agentId, { method: 'POST', url: '/agent/v1/errors', payload: event })

      const first = await report(loc.rawKey)
      assert.equal(first.statusCode, 202)
      assert.equal(first.headers['x-ratelimit-limit'], String(AGENT_ERRORS_PER_WINDOW))
      assert.equal(first.headers['x-ratelimit-remaining'], String(AGENT_ERRORS_PER_WINDOW - 1))
      nowMs += 15_000
      for (let i = 1; i < AGENT_ERRORS_PER_WINDOW; i++) {
        // Another agent, and another key of the location, count against the same window.
        const answer = await report(i % 2 ? secondKey : loc.rawKey, agent(20 + (i % 3)))
        assert.equal(answer.statusCode, 202, `report ${i + 1}`)
      }
      const limited = await report(secondKey, agent(22))
      assert.equal(limited.statusCode, 429)
      assert.equal(limited.headers['retry-after'], '45')
      assert.deepEqual(json(limited), {
        statusCode: 429,
        error: 'Too Many Requests',
        message: `Rate limit exceeded: ${AGENT_ERRORS_PER_WINDOW} requests per 60 seconds`,
        attributes: { limit: AGENT_ERRORS_PER_WINDOW, windowSeconds: 60, retryAfterSeconds: 45 },
      })
      assert.equal(
        (await eventIds(loc.id)).length,
        AGENT_ERRORS_PER_WINDOW,
        'a refused report stores nothing',
      )

      // Only reports are limited; other locations report on; a bad key is 401 and counts for none.
      await heartbeat(loc.rawKey, agent(21))
      assert.equal((await report(quiet.rawKey)).statusCode, 202)
      assert.equal((await report('svc_pl_wrong')).statusCode, 401)

      nowMs += 45_000
      const next = await report(loc.rawKey)
      assert.equal(next.statusCode, 202, 'a new window')
      assert.equal(next.headers['x-ratelimit-remaining'], String(AGENT_ERRORS_PER_WINDOW - 1))
    })
  })
}
