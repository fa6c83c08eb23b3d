import { type Static, Type } from 'typebox'
import { Name, Nullable, StrictObject, StringEnum, Uuid } from './schema-helpers.ts'
import {
  STATUS_PAGE_THEMES,
  THEME_COLOR_NAMES,
  THEME_COLOR_PATTERN,
  type ThemeColorName,
} from './status-pages.ts'

/**
 * The bodies the API takes for private locations, status page services and status pages. They live here,
 * not in the server, so that the CLI's constructs validate the same fields before anything is sent.
 */

/** The icon of a private location that names none, as the hosted API answers and defaults it. */
export const PRIVATE_LOCATION_ICON = 'location'

export const PrivateLocationBody = StrictObject({
  name: Name({ maxLength: 255 }),
  slugName: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$',
    description: 'What checks name in `privateLocations`; unique in the account.',
  }),
  // Nullable, not a union with null: a wrong value is one issue, not one per branch.
  icon: Type.Optional(Nullable(Type.String({ maxLength: 255, default: PRIVATE_LOCATION_ICON }))),
  proxyUrl: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 2048,
        pattern: '^https?://',
        description: 'Proxy the agents use for checks.',
      }),
    ),
  ),
})
export type PrivateLocationBody = Static<typeof PrivateLocationBody>

export const StatusPageServiceBody = StrictObject({
  name: Name({ maxLength: 255, description: 'Shown on status pages and in emails.' }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  checkIds: Type.Optional(
    Type.Array(Uuid(), {
      maxItems: 100,
      description:
        'Checks whose current status the service shows (worst wins) unless an ongoing incident sets it.',
    }),
  ),
})
export type StatusPageServiceBody = Static<typeof StatusPageServiceBody>

const Color = Type.String({
  maxLength: 80,
  pattern: THEME_COLOR_PATTERN,
  description: 'A CSS colour, e.g. #0059C2.',
})

const Palette = StrictObject(
  Object.fromEntries(THEME_COLOR_NAMES.map((name) => [name, Color])) as Record<ThemeColorName, typeof Color>,
)
export const StatusPageThemeColors = StrictObject(
  { light: Palette, dark: Palette },
  { description: 'The 12 colours of the light and the dark theme.' },
)

const HttpUrl = (description: string) =>
  Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description })

export const STATUS_PAGE_SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$'

export const StatusPageCardBody = StrictObject({
  id: Type.Optional(Uuid({ description: 'An existing card of the page, to keep its id.' })),
  name: Name({ maxLength: 255 }),
  services: Type.Array(StrictObject({ id: Uuid() }), { maxItems: 100 }),
})

export const StatusPageBody = StrictObject({
  name: Name({ maxLength: 255 }),
  url: Type.String({
    pattern: STATUS_PAGE_SLUG_PATTERN,
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
  themeColors: Type.Optional(Nullable(StatusPageThemeColors)),
  isPrivate: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Viewing needs an API key of an account member or one of the page’s access tokens.',
    }),
  ),
  whiteLabel: Type.Optional(Type.Boolean({ default: false, description: 'Hides the svc footer.' })),
  cards: Type.Array(StatusPageCardBody, { maxItems: 50 }),
})
export type StatusPageBody = Static<typeof StatusPageBody>
