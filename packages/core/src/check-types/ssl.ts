import { Type } from 'typebox'
import { SslDetail } from '../agent-details.ts'
import { AssertionList } from '../assertions.ts'
import { commonCheckFields } from '../checks/check-fields.ts'
import { highFrequencyFields } from '../checks/frequency.ts'
import { Nullable, StrictObject, StringEnum, Uuid } from '../schema-helpers.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'
import { IP_FAMILIES, MAX_RESPONSE_TIME_MS, ResponseTime, TIMED_JOB_FIELDS } from './shared.ts'

/** The hosted product's SSL monitor (`POST /v1/checks/ssl`), its field names, bounds and defaults. */

export const SSL_ASSERTION_SOURCES = [
  'CERTIFICATE',
  'CONNECTION',
  'RESPONSE_TIME',
  'JSON_RESPONSE',
  'TEXT_RESPONSE',
] as const
export const TLS_VERSIONS = ['TLS1.2', 'TLS1.3'] as const
export const BASELINE_SEVERITIES = ['fail', 'degrade', 'ignore'] as const
export const CLIENT_CERTIFICATE_MODES = ['auto', 'explicit'] as const

const NoControlText = Type.String({ minLength: 1, maxLength: 2048, pattern: '^[^\\x00-\\x1f\\x7f]*$' })
const Severity = (fallback: (typeof BASELINE_SEVERITIES)[number]) =>
  Type.Optional(StringEnum(BASELINE_SEVERITIES, { default: fallback }))
const Rule = (fallback: (typeof BASELINE_SEVERITIES)[number]) =>
  Type.Optional(StrictObject({ severity: Severity(fallback) }, { default: {} }))
const TlsRule = (value: (typeof TLS_VERSIONS)[number], severity: (typeof BASELINE_SEVERITIES)[number]) =>
  Type.Optional(
    StrictObject(
      { value: Type.Optional(StringEnum(TLS_VERSIONS, { default: value })), severity: Severity(severity) },
      { default: {} },
    ),
  )
const KeySizeRule = (value: number, severity: (typeof BASELINE_SEVERITIES)[number]) =>
  Type.Optional(
    StrictObject(
      {
        value: Type.Optional(Type.Integer({ minimum: 1024, maximum: 16384, default: value })),
        severity: Severity(severity),
      },
      { default: {} },
    ),
  )

/** Rules judged on each handshake that reached a trusted certificate for the host. */
export const SslSecurityBaseline = StrictObject(
  {
    enabled: Type.Optional(Type.Boolean({ default: true })),
    minTLSVersion: TlsRule('TLS1.2', 'fail'),
    minKeySizeBits: KeySizeRule(2048, 'fail'),
    weakSignatureAlgorithm: Rule('fail'),
    weakCipherSuite: Rule('fail'),
    knownBadCA: Rule('fail'),
    recommendedTLSVersion: TlsRule('TLS1.3', 'ignore'),
    recommendedKeySizeBits: KeySizeRule(3072, 'ignore'),
    ocspMustStapleRespected: Rule('ignore'),
    sctPresent: Rule('ignore'),
  },
  { default: {} },
)

export const SslConfig = StrictObject({
  hostname: NoControlText,
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 443 })),
  serverName: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 2048,
        pattern: '^[^\\x00-\\x1f\\x7f]*$',
        description: 'The SNI name sent; empty or null: the hostname (none for an IP address).',
      }),
    ),
  ),
  ipFamily: Type.Optional(StringEnum(IP_FAMILIES, { default: 'IPv4' })),
  skipChainValidation: Type.Optional(Type.Boolean({ default: false })),
  handshakeTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 30000, default: 10000 })),
  alertDaysBeforeExpiry: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 365,
      default: 20,
      description: 'A certificate expiring within this many days degrades the run; an expired one fails it.',
    }),
  ),
  securityBaseline: Type.Optional(SslSecurityBaseline),
  clientCertificateMode: Type.Optional(StringEnum(CLIENT_CERTIFICATE_MODES)),
})

export const SslRequest = StrictObject({
  sslConfig: SslConfig,
  sslClientCertificateId: Type.Optional(Nullable(Uuid())),
  assertions: Type.Optional(AssertionList(SSL_ASSERTION_SOURCES)),
})

export const sslCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.SSL.path,
  body: StrictObject({
    ...commonCheckFields,
    ...highFrequencyFields,
    request: SslRequest,
    degradedResponseTime: ResponseTime(3_000, MAX_RESPONSE_TIME_MS),
    maxResponseTime: ResponseTime(10_000, MAX_RESPONSE_TIME_MS),
  }),
  assertionSources: SSL_ASSERTION_SOURCES,
  detail: { key: 'sslCheckResult', schema: Nullable(SslDetail) },
  analytics: {
    segment: CHECK_TYPE_CATALOG.SSL.analyticsSegment,
    metrics: {
      handshakeTimeMs: 'milliseconds',
      daysUntilExpiry: 'count',
      keySizeBits: 'count',
      // 100 for a run where it held, 0 where not: an average is the share of runs.
      hostnameVerified: 'percentage',
      chainTrusted: 'percentage',
      ocspStapled: 'percentage',
      // 1.2 or 1.3.
      tlsVersion: 'score',
    },
    groupBy: ['runLocation'],
    main: CHECK_TYPE_CATALOG.SSL.mainMetric,
  },
  runs: 'definition',
  jobFields: TIMED_JOB_FIELDS,
})
