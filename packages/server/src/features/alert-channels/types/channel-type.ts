import type { RenderOptions, TemplateVariables } from '@svc/core'
import type { TSchema } from 'typebox'
import type { ServiceContext } from '../../../context.ts'

export interface AttemptOutcome {
  ok: boolean
  statusCode: number | null
  body: string | null
  error: string | null
  /**
   * A failure that would fail the same way again, before anything was sent (a template that does not
   * render, a channel type this node can't send) or refused for good by a mail server: not retried.
   * Every status a receiver answers stays retried, 4xx included (the spec's "Delivery and retries").
   */
  permanent?: boolean
}

/** A failure no retry can change: the delivery fails at once. */
export class PermanentFailure extends Error {}

/** What one delivery attempt sends. */
export interface SendInput {
  /** The event's variables over the account's and the group's (never secrets). */
  variables: TemplateVariables
  /** The event's variables alone, for messages svc writes itself. */
  event: TemplateVariables
  options: RenderOptions
  /** The same on every retry of one notification, for receivers to deduplicate. */
  deliveryId: string
}

/** A config as validated and stored, and what the save has to tell (template names, for secret warnings). */
export interface PreparedConfig<Stored> {
  config: Stored
  templateNames?: Set<string>
}

/**
 * Everything one alert channel type means. `Stored` is its config in the store (secrets sealed), `Opened`
 * what delivery uses (secrets opened; it never leaves the server).
 */
export interface ChannelTypeDefinition<Stored = unknown, Opened = unknown> {
  /** The config's schema, from core (the API body and the CLI's constructs share it). */
  schema: TSchema
  /** Rules beyond the schema (a 400 names the path); seals secrets, keeping `previous`'s where asked. */
  prepare(
    ctx: ServiceContext,
    config: Record<string, unknown>,
    previous: Stored | null,
  ): PreparedConfig<Stored>
  /** The config as clients read it: no secret in the clear. */
  publicView(config: Stored): Record<string, unknown>
  open(ctx: ServiceContext, config: Stored): Opened
  /** Values a receiver might echo back, scrubbed from what the delivery log records. */
  secrets(ctx: ServiceContext, config: Opened): string[]
  /** One attempt. Never throws but for a PermanentFailure: a refusal is an outcome. */
  send(ctx: ServiceContext, config: Opened, input: SendInput): Promise<AttemptOutcome>
}

/** Erases a definition's own config types, for the table of every type. */
export function defineChannelType<Stored, Opened>(
  definition: ChannelTypeDefinition<Stored, Opened>,
): ChannelTypeDefinition {
  return definition as unknown as ChannelTypeDefinition
}

/** For types whose config has no secret: stored, shown and sent as the schema took it. */
export function plainConfig<Config extends object>() {
  return {
    prepare: (_ctx: ServiceContext, config: Record<string, unknown>) => ({
      config: config as unknown as Config,
    }),
    publicView: (config: Config) => ({ ...config }) as Record<string, unknown>,
    open: (_ctx: ServiceContext, config: Config) => config,
    secrets: (_ctx: ServiceContext, _config: Config): string[] => [],
  }
}
