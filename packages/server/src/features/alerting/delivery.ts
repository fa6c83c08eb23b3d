import { type RenderOptions, Scrubber, type TemplateVariables } from '@svc/core'
import type { ServiceContext } from '../../context.ts'
import {
  type AttemptOutcome,
  channelSecrets,
  type DeliverableChannel,
  sendThrough,
} from '../alert-channels/alert-channels.service.ts'
import * as groupLookups from '../check-groups/group-lookups.service.ts'
import type { StoredVariable } from '../checks/check-variables.ts'
import * as variableLookups from '../variables/variable-lookups.service.ts'

export type { AttemptOutcome } from '../alert-channels/alert-channels.service.ts'

export interface AlertEvent {
  groupId: number | null
  variables: TemplateVariables
}

/**
 * One delivery attempt of `event` through `channel`, by its type's module. Never throws: a failure is an
 * outcome, and nothing the request carried that is locked or a key shows in it.
 */
export async function deliver(
  ctx: ServiceContext,
  channel: DeliverableChannel,
  event: AlertEvent,
  deliveryId: string,
): Promise<AttemptOutcome> {
  const hidden: string[] = []
  try {
    const environment = await environmentOf(ctx, channel.accountId, event.groupId)
    hidden.push(...environment.hidden, ...channelSecrets(ctx, channel))
    const options: RenderOptions = {
      now: ctx.clock.now(),
      region: ctx.alerting?.region ?? 'local',
    }
    const variables = { ...environment.values, ...event.variables }
    const outcome = await sendThrough(ctx, channel, {
      variables,
      event: event.variables,
      options,
      deliveryId,
    })
    return scrubOutcome(outcome, new Scrubber(hidden))
  } catch (error) {
    return scrubOutcome(failure(error instanceof Error ? error.message : String(error)), new Scrubber(hidden))
  }
}

function failure(error: string): AttemptOutcome {
  return { ok: false, statusCode: null, body: null, error }
}

function scrubOutcome(outcome: AttemptOutcome, scrubber: Scrubber): AttemptOutcome {
  if (scrubber.empty) return outcome
  return {
    ...outcome,
    body: outcome.body === null ? null : scrubber.text(outcome.body),
    error: outcome.error === null ? null : scrubber.text(outcome.error),
  }
}

/** Account variables, then the group's, never secrets (they render empty); `hidden` are the locked values. */
async function environmentOf(ctx: ServiceContext, accountId: string, groupId: number | null) {
  const values: Record<string, string> = {}
  const hidden: string[] = []
  const { rows } = await variableLookups.listVariables(ctx, accountId, {}, { limit: 100_000, offset: 0 })
  for (const row of rows) {
    if (row.secret) continue
    values[row.key] =
      row.encrypted_value !== null ? ctx.secretBox.decrypt(row.encrypted_value) : (row.value ?? '')
    if (row.locked) hidden.push(values[row.key] as string)
  }
  if (groupId !== null) {
    const group = await groupLookups.findGroup(ctx, accountId, groupId)
    const variables = (
      group ? (JSON.parse(group.definition).environmentVariables ?? []) : []
    ) as StoredVariable[]
    for (const variable of variables) {
      if (variable.secret) continue
      values[variable.key] =
        variable.sealedValue !== null ? ctx.secretBox.decrypt(variable.sealedValue) : (variable.value ?? '')
      if (variable.locked) hidden.push(values[variable.key] as string)
    }
  }
  return { values, hidden }
}
