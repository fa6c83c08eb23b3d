import { type Static, type TOptional, type TSchema, Type } from 'typebox'
import { IntegerEnum, Nullable, StrictObject, StringEnum } from './schema-helpers.ts'

/**
 * A dashboard's display settings as the API validates them (server `dashboards.schemas.ts`), here so the
 * web app's form takes its choices and bounds from the same schemas.
 */

export const DASHBOARD_SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$'

// Links and images go into the page's HTML: only http(s) URLs, or empty.
export const DASHBOARD_PAGE_URL_PATTERN = '^(?:https?://\\S+)?$'
const PageUrl = (description: string) =>
  Nullable(Type.String({ pattern: DASHBOARD_PAGE_URL_PATTERN, maxLength: 2048, description }))

/**
 * The display settings. Their defaults (DASHBOARD_SETTINGS_DEFAULTS) are applied by the service, not by schema
 * defaults, which would fill a partial update with them.
 */
export const DASHBOARD_SETTINGS_FIELDS = {
  logo: PageUrl('Logo image URL.'),
  favicon: PageUrl('Favicon URL.'),
  link: PageUrl('Where the logo links to.'),
  header: Type.String({ maxLength: 255, description: 'Text at the top of the page.' }),
  description: Nullable(Type.String({ maxLength: 2000 })),
  width: StringEnum(['FULL', '960PX'] as const, { description: "Default 'FULL'." }),
  refreshRate: IntegerEnum([60, 300, 600] as const, { description: 'Seconds between reloads. Default 60.' }),
  paginate: Type.Boolean({ description: 'Default true.' }),
  paginationRate: IntegerEnum([30, 60, 300] as const, {
    description: 'Seconds each page of checks shows. Default 60.',
  }),
  sortByStatus: Type.Boolean({ description: 'Failing checks first. Default false.' }),
  checksPerPage: Nullable(Type.Integer({ minimum: 1, maximum: 20, description: 'Default 15.' })),
  useTagsAndOperator: Nullable(
    Type.Boolean({ description: 'true: checks with every tag; else any tag. Default false.' }),
  ),
  hideTags: Type.Boolean({ description: 'Default false.' }),
  enableIncidents: Type.Boolean({ description: 'Shows the incidents. Default false.' }),
  expandChecks: Type.Boolean({ description: 'Default false.' }),
  showHeader: Type.Boolean({ description: 'Default true.' }),
  showCheckRunLinks: Type.Boolean({ description: 'Default false.' }),
  showGroupNames: Type.Boolean({ description: 'Default true.' }),
  customCSS: Nullable(Type.String({ maxLength: 100_000, description: "Default ''." })),
  isPrivate: Type.Boolean({ description: 'Viewing needs an API key of an account member. Default false.' }),
  showP95: Type.Boolean({ description: 'Default true.' }),
  showP99: Type.Boolean({ description: 'Default true.' }),
}
export type DashboardSettings = {
  [K in keyof typeof DASHBOARD_SETTINGS_FIELDS]: Static<(typeof DASHBOARD_SETTINGS_FIELDS)[K]>
}

export const DASHBOARD_SETTINGS_DEFAULTS: DashboardSettings = {
  logo: null,
  favicon: null,
  link: null,
  header: '',
  description: null,
  width: 'FULL',
  refreshRate: 60,
  paginate: true,
  paginationRate: 60,
  sortByStatus: false,
  checksPerPage: 15,
  useTagsAndOperator: false,
  hideTags: false,
  enableIncidents: false,
  expandChecks: false,
  showHeader: true,
  showCheckRunLinks: false,
  showGroupNames: true,
  customCSS: '',
  isPrivate: false,
  showP95: true,
  showP99: true,
}

/** Each of `fields` optional, as bodies take them. */
function optional<T extends Record<string, TSchema>>(fields: T): { [K in keyof T]: TOptional<T[K]> } {
  return Object.fromEntries(
    Object.entries(fields).map(([name, schema]) => [name, Type.Optional(schema)]),
  ) as {
    [K in keyof T]: TOptional<T[K]>
  }
}

/** A dashboard body's fields, each optional (an update's); a create also needs `header`. */
export const DASHBOARD_BODY_FIELDS = {
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
  ...optional(DASHBOARD_SETTINGS_FIELDS),
}

export const DashboardCreateBody = StrictObject({
  ...DASHBOARD_BODY_FIELDS,
  header: Type.String({ maxLength: 255, description: 'Text at the top of the page.' }),
})
export type DashboardCreateBody = Static<typeof DashboardCreateBody>
