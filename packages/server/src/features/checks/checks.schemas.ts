import {
  CHECK_BODIES,
  CHECK_TYPES,
  type CheckType,
  Heartbeat,
  PageQuery,
  SerialId,
  StrictObject,
  StringEnum,
} from '@svc/core'
import { type Static, type TObject, Type } from 'typebox'
import { ProjectBindings } from '../projects/project-bindings.ts'

const AlertChannels = Type.Object({
  email: Type.Array(Type.Object({ address: Type.String() })),
  webhook: Type.Array(
    Type.Object({
      name: Type.String(),
      url: Type.String(),
      method: Type.String(),
      headers: Type.Array(Type.Object({ key: Type.String(), value: Type.String(), locked: Type.Boolean() })),
      queryParameters: Type.Array(
        Type.Object({ key: Type.String(), value: Type.String(), locked: Type.Boolean() }),
      ),
    }),
  ),
  slack: Type.Array(Type.Object({ url: Type.String() })),
  sms: Type.Array(Type.Object({ number: Type.String(), name: Type.String() })),
})

const responseExtras = {
  id: Type.String({ format: 'uuid' }),
  checkType: StringEnum(CHECK_TYPES),
  alertChannels: AlertChannels,
  warnings: Type.Array(Type.String(), {
    description:
      'What keeps the check from running as configured (e.g. a private location without agents); the ' +
      "answer to a save adds what it took but ignores (a heartbeat's locations and privateLocations).",
  }),
  projectBindings: ProjectBindings,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}

const pingFields = {
  pingToken: Type.String(),
  pingUrl: Type.String({ description: 'Absolute URL to GET, POST or HEAD; append /fail to fail the check.' }),
}
/** Where the hosted product's clients read them (under `heartbeat`), and at the top level as before. */
const heartbeatExtras = {
  ...pingFields,
  heartbeat: Type.Object({ ...Heartbeat.properties, ...pingFields }),
}

/** A check as the API answers it: its definition with defaults, plus id, type, channels and times. */
export function CheckResponse(checkType: CheckType) {
  const body = CHECK_BODIES[checkType] as TObject
  return Type.Unsafe<AnyCheck>(
    Type.Object(
      { ...body.properties, ...responseExtras, ...(checkType === 'HEARTBEAT' ? heartbeatExtras : {}) },
      { title: `${checkType} check`, additionalProperties: true },
    ),
  )
}

/** Any check type (lists and type-agnostic reads). */
export const AnyCheck = Type.Object(
  {
    name: Type.String(),
    activated: Type.Boolean(),
    muted: Type.Boolean(),
    frequency: Type.Integer(),
    ...responseExtras,
  },
  { title: 'Check', additionalProperties: true },
)
export type AnyCheck = Static<typeof AnyCheck> & Record<string, unknown>

export const CheckIdParams = StrictObject({ id: Type.String({ format: 'uuid' }) })

export const AutoAssignQuery = StrictObject({
  autoAssignAlerts: Type.Optional(
    Type.Boolean({ default: true, description: 'Subscribe the new check to every existing alert channel.' }),
  ),
})

/** Clients of hosted products send create's parameter on updates too: taken, and it changes nothing. */
export const UpdateAutoAssignQuery = StrictObject({
  autoAssignAlerts: Type.Optional(
    Type.Boolean({
      description:
        "Accepted as on create; an update keeps the check's subscriptions (send alertChannelSubscriptions to change them).",
    }),
  ),
})

/** The hosted check types svc has no checks of: a filter by one lists none. */
export const HOSTED_ONLY_TYPES = ['PLAYWRIGHT', 'AGENTIC', 'TRACEROUTE', 'GRPC'] as const
export const STATUSES = ['passing', 'failing', 'degraded'] as const

const applyGroupSettings = Type.Optional(
  Type.Boolean({
    default: false,
    description:
      'true: checks of a group as they run there (see GET /v1/check-groups/{groupId}/checks/{checkId}).',
  }),
)

/** The query of `GET /v2/checks` and `GET /v3/checks`, as the hosted API defines it. */
export const SearchChecksQuery = StrictObject({
  ...PageQuery,
  apiCheckUrlFilterPattern: Type.Optional(
    Type.String({ minLength: 1, maxLength: 2048, description: 'API checks whose URL contains this text.' }),
  ),
  tag: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      maxItems: 20,
      description: 'Checks with every tag named (their own or their group’s); may be repeated.',
    }),
  ),
  checkType: Type.Optional(StringEnum([...CHECK_TYPES, ...HOSTED_ONLY_TYPES])),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Name substring, case-insensitive.' })),
  status: Type.Optional(
    StringEnum(STATUSES, { description: 'Current status (checks that never ran: none).' }),
  ),
  applyGroupSettings,
})
export type SearchChecksQuery = Static<typeof SearchChecksQuery>

/** The hosted filters of `GET /v1/checks` that svc's own v1 list has no equivalent of. */
export const HOSTED_V1_FILTERS = {
  apiCheckUrlFilterPattern: SearchChecksQuery.properties.apiCheckUrlFilterPattern,
  search: SearchChecksQuery.properties.search,
  status: SearchChecksQuery.properties.status,
  applyGroupSettings,
}

export const GetCheckQuery = StrictObject({
  includeDependencies: Type.Optional(
    Type.Boolean({ description: 'Accepted: a check’s answer always holds its script files.' }),
  ),
  applyGroupSettings,
})

const ownCheckFilters = {
  ...PageQuery,
  checkType: Type.Optional(StringEnum(CHECK_TYPES)),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  groupId: Type.Optional(SerialId()),
  activated: Type.Optional(Type.Boolean()),
  name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Substring, case-insensitive.' }),
  ),
}

/** The filters of `GET /v1/check-statuses`: svc's own. */
export const CheckStatusesQuery = StrictObject(ownCheckFilters)

const TagList = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
  maxItems: 20,
  description: 'Checks with every tag named; may be repeated (several count a group’s tags too).',
})

/** svc's own filters and the hosted ones; `tag` repeated, or as `tag[]` (the hosted CLI's axios sends it so). */
export const ListChecksQuery = StrictObject({
  ...ownCheckFilters,
  tag: Type.Optional(TagList),
  'tag[]': Type.Optional(TagList),
  ...HOSTED_V1_FILTERS,
})

/**
 * The body of a typed PUT (`/v1/checks/{type}/{id}`): the create body with nothing required and no
 * defaults, since the fields it leaves out keep their stored values (the hosted update schemas
 * require nothing).
 */
export function CheckPatchBody<T extends TObject>(body: T): T {
  const properties = Object.fromEntries(
    Object.entries(body.properties).map(([name, schema]) => {
      const { default: _default, ...rest } = schema as Record<string, unknown>
      return [name, rest]
    }),
  )
  return { ...body, properties, required: undefined } as unknown as T
}
