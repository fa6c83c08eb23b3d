import {
  DASHBOARD_BODY_FIELDS,
  DASHBOARD_SETTINGS_DEFAULTS,
  DASHBOARD_SETTINGS_FIELDS,
  DASHBOARD_SLUG_PATTERN,
  DashboardCreateBody,
  type DashboardSettings,
  Nullable,
  PageQuery,
  StrictObject,
  StringEnum,
} from '@svc/core'
import { type Static, Type } from 'typebox'

/** The hosted product's public dashboards: a page of check status selected by tags. */

export { DASHBOARD_SLUG_PATTERN, type DashboardSettings }

/** The display settings and their defaults live in core: the web app's form reads the same schemas. */
const settingsFields = DASHBOARD_SETTINGS_FIELDS

export const SETTINGS_DEFAULTS = DASHBOARD_SETTINGS_DEFAULTS

export { DashboardCreateBody }

/** Every field optional: a PUT changes the fields it sends and keeps the rest. */
export const DashboardUpdateBody = StrictObject(DASHBOARD_BODY_FIELDS)
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
