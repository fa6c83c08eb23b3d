import {
  DASHBOARD_SETTINGS_DEFAULTS,
  DASHBOARD_SETTINGS_FIELDS,
  DASHBOARD_SLUG_PATTERN,
  type DashboardSettings,
  Nullable,
  PageQuery,
  StrictObject,
  StringEnum,
} from '@svc/core'
import { type Static, type TOptional, type TSchema, Type } from 'typebox'

/** The hosted product's public dashboards: a page of check status selected by tags. */

export { DASHBOARD_SLUG_PATTERN, type DashboardSettings }

/** The display settings and their defaults live in core: the web app's form reads the same schemas. */
const settingsFields = DASHBOARD_SETTINGS_FIELDS

/** Each of `fields` optional, as bodies take them. */
function optional<T extends Record<string, TSchema>>(fields: T): { [K in keyof T]: TOptional<T[K]> } {
  return Object.fromEntries(
    Object.entries(fields).map(([name, schema]) => [name, Type.Optional(schema)]),
  ) as {
    [K in keyof T]: TOptional<T[K]>
  }
}

export const SETTINGS_DEFAULTS = DASHBOARD_SETTINGS_DEFAULTS

const bodyFields = {
  customUrl: Type.Optional(
    Nullable(
      Type.String({
        pattern: DASHBOARD_SLUG_PATTERN,
        maxLength: 63,
        description: 'The page is served at /dashboards/{customUrl}: a-z, 0-9 and -, unique.',
      }),
    ),
  ),
  customDomain: Type.Optional(
    Nullable(Type.String({ maxLength: 253, description: 'A domain whose root serves the page, unique.' })),
  ),
  tags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
      maxItems: 50,
      description: 'Checks with these tags (their own or their group’s) are shown; none: every check.',
    }),
  ),
  keys: Type.Optional(
    Type.Array(Type.Unknown(), {
      description: 'Only an empty list: svc has no dashboard keys (see docs/compatibility.md).',
    }),
  ),
  ...optional(settingsFields),
}

export const DashboardCreateBody = StrictObject({
  ...bodyFields,
  header: Type.String({ maxLength: 255, description: 'Text at the top of the page.' }),
})
export type DashboardCreateBody = Static<typeof DashboardCreateBody>

/** Every field optional: a PUT changes the fields it sends and keeps the rest. */
export const DashboardUpdateBody = StrictObject(bodyFields)
export type DashboardUpdateBody = Static<typeof DashboardUpdateBody>

export const Dashboard = Type.Object(
  {
    id: Type.Integer(),
    dashboardId: Type.String(),
    customUrl: Nullable(Type.String()),
    customDomain: Nullable(Type.String()),
    tags: Type.Array(Type.String()),
    keys: Type.Array(Type.Unknown()),
    ...settingsFields,
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Dashboard' },
)
export type Dashboard = {
  id: number
  dashboardId: string
  customUrl: string | null
  customDomain: string | null
  tags: string[]
  keys: never[]
  created_at: string
} & DashboardSettings

export const DashboardParams = StrictObject({ dashboardId: Type.String({ minLength: 1, maxLength: 255 }) })

export const GetDashboardQuery = StrictObject({
  type: Type.Optional(
    StringEnum(['customUrl', 'customDomain'] as const, {
      description: 'Names the dashboard by its customUrl or customDomain instead of its dashboardId.',
    }),
  ),
})

export const ListDashboardsQuery = StrictObject({ ...PageQuery })
