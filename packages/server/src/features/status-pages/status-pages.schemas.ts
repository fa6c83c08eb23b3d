import {
  Name,
  Nullable,
  PageQuery,
  STATUS_PAGE_THEMES,
  StrictObject,
  StringEnum,
  THEME_COLOR_NAMES,
  type ThemeColorName,
  Uuid,
} from '@svc/core'
import { type Static, Type } from 'typebox'
import { ProjectBindings } from '../projects/project-bindings.ts'
import { Service } from '../status-page-services/status-page-services.schemas.ts'

/** A CSS colour the page can inline safely: hex, a named colour, or rgb()/hsl() with plain arguments. */
const COLOR_PATTERN = '^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,30}|(rgb|rgba|hsl|hsla)\\([0-9., %/]{1,60}\\))$'
const Color = Type.String({
  maxLength: 80,
  pattern: COLOR_PATTERN,
  description: 'A CSS colour, e.g. #0059C2.',
})

const Palette = StrictObject(
  Object.fromEntries(THEME_COLOR_NAMES.map((name) => [name, Color])) as Record<ThemeColorName, typeof Color>,
)
export const ThemeColors = StrictObject(
  { light: Palette, dark: Palette },
  { description: 'The 12 colours of the light and the dark theme.' },
)

const HttpUrl = (description: string) =>
  Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description })

export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$'

const CardBody = StrictObject({
  id: Type.Optional(Uuid({ description: 'An existing card of the page, to keep its id.' })),
  name: Name({ maxLength: 255 }),
  services: Type.Array(StrictObject({ id: Uuid() }), { maxItems: 100 }),
})

export const StatusPageBody = StrictObject({
  name: Name({ maxLength: 255 }),
  url: Type.String({
    pattern: SLUG_PATTERN,
    maxLength: 63,
    description: 'The slug of the public page at /status/{url}: a-z, 0-9 and -, unique.',
  }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  customDomain: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 500,
        description: 'A domain whose requests show this page (status.example.com), unique.',
      }),
    ),
  ),
  logo: Type.Optional(Nullable(HttpUrl('Logo image URL.'))),
  logoDark: Type.Optional(Nullable(HttpUrl('Logo in dark mode; the logo when unset.'))),
  favicon: Type.Optional(Nullable(HttpUrl('Favicon URL.'))),
  redirectTo: Type.Optional(Nullable(HttpUrl('Where the logo links to.'))),
  defaultTheme: Type.Optional(StringEnum(STATUS_PAGE_THEMES, { default: 'AUTO' })),
  themeColors: Type.Optional(Nullable(ThemeColors)),
  isPrivate: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Viewing needs an API key of an account member or one of the page’s access tokens.',
    }),
  ),
  whiteLabel: Type.Optional(Type.Boolean({ default: false, description: 'Hides the svc footer.' })),
  cards: Type.Array(CardBody, { maxItems: 50 }),
})
export type StatusPageBody = Static<typeof StatusPageBody>

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
