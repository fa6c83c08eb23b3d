import type { TSchema } from 'typebox'
import { Value } from 'typebox/value'

/** One resource of the deploy payload, as the hosted product's CLI synthesizes it. */
export interface Resource {
  logicalId: string
  type: string
  member: boolean
  payload: Record<string, unknown>
  /** The file that defines it, relative to the project (added when the project synthesizes). */
  sourceFile?: string
}

/** A reference to another resource of the project, resolved by the server to the id deployed for it. */
export interface Ref {
  ref: string
}

/** A field of a construct that is wrong: where it was made, and what is wrong with which field. */
export interface Issue {
  file: string | undefined
  logicalId: string
  path: string
  message: string
}

/** Settings of `svc.config.ts` that the constructs fill in where they say nothing. */
export interface CheckDefaults {
  locations?: string[]
  frequency?: number
  tags?: string[]
  alertChannels?: Construct[]
}

const LOGICAL_ID = /^[A-Za-z0-9_.#:/-]{1,255}$/

export abstract class Construct {
  readonly logicalId: string
  /** The resource type of the deploy protocol. */
  readonly type: string
  /** The file the construct was made in, to name in errors. */
  readonly sourceFile: string | undefined

  constructor(type: string, logicalId: string) {
    this.type = type
    this.logicalId = logicalId
    this.sourceFile = session().currentFile
    session().constructs.push(this)
  }

  ref(): Ref {
    return { ref: this.logicalId }
  }

  /** What is wrong with the construct, empty when it can be deployed. */
  abstract validate(defaults: CheckDefaults): Issue[]

  /** The resources the construct deploys as (a check with alert channels is also their subscriptions). */
  abstract synthesize(defaults: CheckDefaults): Resource[]

  protected issue(path: string, message: string): Issue {
    return { file: this.sourceFile, logicalId: this.logicalId, path, message }
  }

  protected logicalIdIssues(): Issue[] {
    return LOGICAL_ID.test(this.logicalId)
      ? []
      : [this.issue('logicalId', 'must be 1-255 letters, digits or . _ - # : /')]
  }

  /** The schema's complaints about `value`, one per field (the most specific one). */
  protected schemaIssues(schema: TSchema, value: unknown): Issue[] {
    const seen = new Set<string>()
    const issues: Issue[] = []
    for (const error of Value.Errors(schema, value)) {
      if (error.keyword === 'boolean') continue
      const params = error.params as { additionalProperties?: string[]; requiredProperties?: string[] }
      const extra = params.additionalProperties
      const missing = params.requiredProperties
      const named = extra?.[0] ?? missing?.[0]
      const field = named === undefined ? error.instancePath : joinPath(error.instancePath, named)
      if (seen.has(field)) continue
      seen.add(field)
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues
      const message = extra
        ? 'is not a known field'
        : missing
          ? 'is required'
          : allowed
            ? `${error.message}: ${allowed.join(', ')}`
            : error.message
      issues.push(this.issue(field.replace(/^\//, '').replaceAll('/', '.') || '(root)', message))
    }
    return issues
  }
}

/**
 * A construct deployed as one resource whose payload is checked against one schema: its props as given
 * (undefined fields left out), unless the construct shapes its payload otherwise (`body`).
 */
export abstract class PlainConstruct<Props extends object> extends Construct {
  readonly props: Props
  readonly #schema: TSchema

  constructor(type: string, logicalId: string, props: Props, schema: TSchema) {
    super(type, logicalId)
    this.props = props ?? ({} as Props)
    this.#schema = schema
  }

  /** The resource's payload. */
  protected body(): Record<string, unknown> {
    return defined({ ...this.props } as Record<string, unknown>)
  }

  validate(_defaults: CheckDefaults): Issue[] {
    return [...this.logicalIdIssues(), ...this.schemaIssues(this.#schema, this.body())]
  }

  synthesize(): Resource[] {
    return [{ logicalId: this.logicalId, type: this.type, member: true, payload: this.body() }]
  }
}

/** Whether `value` is a construct of `type`, by its fields: a user's file may load a second copy of this module. */
export function isConstructOf(value: unknown, type: string): value is Construct {
  const construct = value as Partial<Construct> | null
  return (
    typeof construct === 'object' &&
    construct !== null &&
    construct.type === type &&
    typeof construct.ref === 'function'
  )
}

function joinPath(base: string, key: string): string {
  return `${base}/${key}`
}

/** The object without its undefined fields, so payloads compare equal across deploys. */
export function defined<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T
}

/**
 * The constructs made while a project's files load. Kept on globalThis so that a user's file importing
 * the package by another path (a second copy of the module) still registers into the loading project.
 */
interface Session {
  constructs: Construct[]
  currentFile: string | undefined
}

const KEY = Symbol.for('svc.cli.session')

export function session(): Session {
  const holder = globalThis as { [KEY]?: Session }
  holder[KEY] ??= { constructs: [], currentFile: undefined }
  return holder[KEY]
}

/** Starts an empty session: loading a project twice in one process must not see the first load's constructs. */
export function resetSession(): Session {
  const fresh = session()
  fresh.constructs = []
  fresh.currentFile = undefined
  return fresh
}
