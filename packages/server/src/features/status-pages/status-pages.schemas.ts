import {
  Name,
  Nullable,
  PageQuery,
  STATUS_PAGE_THEMES,
  StatusPageThemeColors,
  StrictObject,
  StringEnum,
  Uuid,
} from '@svc/core'
import { type Static, Type } from 'typebox'
import { ProjectBindings } from '../projects/project-bindings.ts'
import { Service } from '../status-page-services/status-page-services.schemas.ts'

export { StatusPageBody } from '@svc/core'
export const ThemeColors = StatusPageThemeColors

const Timestamps = {
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}

const Card = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  services: Type.Array(Service),
  ...Timestamps,
})

const nullableString = (options: Record<string, unknown> = {}) => Nullable(Type.String(options))

const SharedFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  url: Type.String(),
  description: nullableString(),
  customDomain: nullableString(),
  themeColors: ThemeColors,
  logo: nullableString(),
  logoDark: nullableString(),
  redirectTo: nullableString(),
  favicon: nullableString(),
  defaultTheme: StringEnum(STATUS_PAGE_THEMES),
  version: Type.Integer(),
  whiteLabel: Type.Boolean(),
  isPrivate: Type.Boolean(),
}

export const StatusPage = Type.Object(
  {
    ...SharedFields,
    publicUrl: Type.String({ description: 'Where the public page is served.' }),
    cards: Type.Array(Card),
    ...Timestamps,
  },
  { title: 'StatusPage' },
)
export type StatusPage = Static<typeof StatusPage>

/** The spec's deprecated v1 form, field for field. */
export const StatusPageV1 = Type.Object(
  {
    ...SharedFields,
    cards: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        ...Timestamps,
        services: Type.Array(
          Type.Object({
            name: Type.String(),
            id: Type.String(),
            accountId: Type.String(),
            ...Timestamps,
          }),
        ),
      }),
    ),
    projectBindings: ProjectBindings,
  },
  { title: 'StatusPageV1' },
)
export type StatusPageV1 = Static<typeof StatusPageV1>

export const StatusPageIdParams = StrictObject({ statusPageId: Uuid() })
/** The v1 form takes any string (the spec's type); an id that is no page is 404. */
export const V1StatusPageIdParams = StrictObject({
  statusPageId: Type.String({ minLength: 1, maxLength: 64 }),
})
export const ListStatusPagesQuery = StrictObject(PageQuery)

export const AccessTokenBody = StrictObject({ name: Name({ maxLength: 255 }) })
export const AccessToken = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    maskedToken: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'StatusPageAccessToken' },
)
export const CreatedAccessToken = Type.Object(
  {
    ...AccessToken.properties,
    token: Type.String({ description: 'Shown only here. Viewers send it as ?token= or a bearer token.' }),
  },
  { title: 'CreatedStatusPageAccessToken' },
)
export const AccessTokenParams = StrictObject({ statusPageId: Uuid(), tokenId: Uuid() })
