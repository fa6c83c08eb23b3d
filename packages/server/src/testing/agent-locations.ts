import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { listSchedule } from '../runs/schedules.repo.ts'
import { json, type TestApp } from './test-app.ts'

/** A new private location of the test's account, and a key for it as its agent holds it. */
export async function privateLocationWithKey(
  t: TestApp,
  slugName: string,
): Promise<{ id: string; key: string; rawKey: string }> {
  const location = json(
    await t.call({ method: 'POST', url: '/v1/private-locations', payload: { name: slugName, slugName } }),
  )
  const { rawKey } = json(await t.call({ method: 'POST', url: `/v1/private-locations/${location.id}/keys` }))
  return { id: location.id, key: `private:${location.id}`, rawKey }
}

/**
 * Sends `options` to the agent API as agent `agentId` with the location key `key`: a body as JSON unless
 * `options.headers` say otherwise.
 */
export function asAgent(
  t: TestApp,
  key: string,
  agentId: string,
  options: InjectOptions,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    ...options,
    headers: {
      authorization: `Bearer ${key}`,
      'x-svc-agent-id': agentId,
      'content-type': 'application/json',
      ...options.headers,
    },
  })
}

/** The latest due time of the slots of `checkIds`: with the clock there, all of them are due. */
export async function latestDueMs(t: TestApp, checkIds: Iterable<string>): Promise<number> {
  let latest = Number.NEGATIVE_INFINITY
  for (const checkId of checkIds)
    for (const slot of await listSchedule(t.ctx, checkId)) latest = Math.max(latest, Number(slot.next_due_ms))
  return latest
}
