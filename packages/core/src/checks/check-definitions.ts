import { type Static, type TSchema, Type } from 'typebox'
import { AssertionList } from '../assertions.ts'
import { Nullable, StrictObject, StringEnum } from '../schema-helpers.ts'
import { type CheckType, commonCheckFields, scriptCheckFields } from './check-fields.ts'

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH', 'OPTIONS'] as const
export const BODY_TYPES = ['JSON', 'FORM', 'RAW', 'GRAPHQL', 'NONE'] as const
export const IP_FAMILIES = ['IPv4', 'IPv6'] as const
export const DNS_RECORD_TYPES = [
  'A',
  'AAAA',
  'CNAME',
  'MX',
  'NS',
  'TXT',
  'SOA',
  'SRV',
  'CAA',
  'HTTPS',
] as const
export const DNS_PROTOCOLS = ['UDP', 'TCP'] as const
export const HEARTBEAT_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const

/** Response-time limits in ms; up to 45000 where the account enables `extendedUptimeResponseTime`. */
export const MAX_RESPONSE_TIME_MS = 30_000
export const EXTENDED_MAX_RESPONSE_TIME_MS = 45_000

const KeyValue = StrictObject({
  key: Type.String({ minLength: 1, maxLength: 1024 }),
  value: Type.String({ maxLength: 10_000 }),
  locked: Type.Optional(Type.Boolean({ default: false })),
})

const Hostname = Type.String({ minLength: 1, maxLength: 253 })
const Port = Type.Integer({ minimum: 1, maximum: 65535 })
/** TCP, API and URL checks go up to 45 s where the account allows it (the spec); other types stay at 30 s. */
const ResponseTime = (fallback: number, maximum = EXTENDED_MAX_RESPONSE_TIME_MS) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum, default: fallback }))

export const ApiRequest = StrictObject({
  method: Type.Optional(StringEnum(HTTP_METHODS, { default: 'GET' })),
  url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://' }),
  headers: Type.Optional(Type.Array(KeyValue, { maxItems: 100, default: [] })),
  queryParameters: Type.Optional(Type.Array(KeyValue, { maxItems: 100, default: [] })),
  body: Type.Optional(Type.String({ maxLength: 1_000_000, default: '' })),
  bodyType: Type.Optional(StringEnum(BODY_TYPES, { default: 'NONE' })),
  basicAuth: Type.Optional(
    Nullable(
      StrictObject({
        username: Type.String({ maxLength: 1024 }),
        password: Type.String({ maxLength: 1024 }),
      }),
    ),
  ),
  followRedirects: Type.Optional(Type.Boolean({ default: true })),
  skipSSL: Type.Optional(Type.Boolean({ default: false })),
  ipFamily: Type.Optional(StringEnum(IP_FAMILIES, { default: 'IPv4' })),
  assertions: Type.Optional(AssertionList('API')),
})

export const UrlRequest = StrictObject({
  url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://' }),
  // Hosted clients always send it; a URL monitor only ever sends GET (the server refuses the others).
  method: Type.Optional(Type.String({ description: 'Only GET, the method a URL monitor sends' })),
  followRedirects: Type.Optional(Type.Boolean({ default: true })),
  skipSSL: Type.Optional(Type.Boolean({ default: false })),
  ipFamily: Type.Optional(StringEnum(IP_FAMILIES, { default: 'IPv4' })),
  assertions: Type.Optional(AssertionList('URL')),
})

export const TcpRequest = StrictObject({
  hostname: Hostname,
  port: Port,
  // No default: the hosted schema's data is absent or non-empty, never ''.
  data: Type.Optional(Type.String({ maxLength: 65_536 })),
  ipFamily: Type.Optional(StringEnum(IP_FAMILIES, { default: 'IPv4' })),
  assertions: Type.Optional(AssertionList('TCP')),
})

export const DnsRequest = StrictObject({
  query: Type.String({ minLength: 1, maxLength: 253 }),
  recordType: StringEnum(DNS_RECORD_TYPES),
  nameServer: Type.Optional(Nullable(Hostname)),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 53 })),
  protocol: Type.Optional(StringEnum(DNS_PROTOCOLS, { default: 'UDP' })),
  assertions: Type.Optional(AssertionList('DNS')),
})

export const IcmpRequest = StrictObject({
  hostname: Hostname,
  pingCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  ipFamily: Type.Optional(StringEnum(IP_FAMILIES, { default: 'IPv4' })),
  assertions: Type.Optional(AssertionList('ICMP')),
})

export const Heartbeat = StrictObject({
  period: Type.Integer({ minimum: 1 }),
  periodUnit: StringEnum(HEARTBEAT_UNITS),
  grace: Type.Integer({ minimum: 0 }),
  graceUnit: StringEnum(HEARTBEAT_UNITS),
})

const Script = Type.String({
  minLength: 1,
  maxLength: 1_000_000,
  description: 'Node.js code using Playwright.',
})

/** The create (and full update) body of each check type. */
export const CHECK_BODIES = {
  API: StrictObject({
    ...commonCheckFields,
    request: ApiRequest,
    degradedResponseTime: ResponseTime(10_000),
    maxResponseTime: ResponseTime(20_000),
  }),
  URL: StrictObject({
    ...commonCheckFields,
    request: UrlRequest,
    degradedResponseTime: ResponseTime(10_000),
    maxResponseTime: ResponseTime(20_000),
  }),
  TCP: StrictObject({
    ...commonCheckFields,
    request: TcpRequest,
    degradedResponseTime: ResponseTime(4_000),
    maxResponseTime: ResponseTime(5_000),
  }),
  DNS: StrictObject({
    ...commonCheckFields,
    request: DnsRequest,
    degradedResponseTime: ResponseTime(1_000, MAX_RESPONSE_TIME_MS),
    maxResponseTime: ResponseTime(2_000, MAX_RESPONSE_TIME_MS),
  }),
  ICMP: StrictObject({
    ...commonCheckFields,
    request: IcmpRequest,
    degradedPacketLossThreshold: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 10 })),
    maxPacketLossThreshold: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 20 })),
  }),
  HEARTBEAT: StrictObject({ ...commonCheckFields, heartbeat: Heartbeat }),
  BROWSER: StrictObject({
    ...commonCheckFields,
    ...scriptCheckFields,
    script: Script,
    sslCheckDomain: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 259,
          pattern: '^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$',
          description: 'A host name (or host:port) whose TLS certificate is checked on each run.',
        }),
      ),
    ),
  }),
  MULTI_STEP: StrictObject({ ...commonCheckFields, ...scriptCheckFields, script: Script }),
  AUTOMATION: StrictObject({
    ...commonCheckFields,
    ...scriptCheckFields,
    script: Type.Optional(
      Type.String({
        maxLength: 1_000_000,
        description: 'A test file written at scriptPath; optional when dependencies hold the suite.',
      }),
    ),
    playwrightConfigPath: Type.Optional(
      Type.String({
        maxLength: 1024,
        default: 'playwright.config.ts',
        description: "The suite's Playwright config: must be one of its files (dependencies, script).",
      }),
    ),
    grep: Type.Optional(
      Nullable(Type.String({ maxLength: 1024, description: 'Runs only tests matching this.' })),
    ),
  }),
} as const satisfies Record<CheckType, TSchema>

export type CheckBody<T extends CheckType> = Static<(typeof CHECK_BODIES)[T]>

/** The path segment of `POST /v1/checks/{segment}` for each type. */
export const CHECK_PATHS = {
  api: 'API',
  browser: 'BROWSER',
  heartbeat: 'HEARTBEAT',
  tcp: 'TCP',
  url: 'URL',
  dns: 'DNS',
  icmp: 'ICMP',
  multistep: 'MULTI_STEP',
  automation: 'AUTOMATION',
} as const satisfies Record<string, CheckType>
