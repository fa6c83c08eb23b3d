import { Type } from 'typebox'
import { DnsDetail } from '../agent-details.ts'
import { AssertionList } from '../assertions.ts'
import { commonCheckFields } from '../checks/check-fields.ts'
import { highFrequencyFields } from '../checks/frequency.ts'
import { Nullable, StrictObject, StringEnum } from '../schema-helpers.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'
import { Hostname, MAX_RESPONSE_TIME_MS, ResponseTime, TIMED_JOB_FIELDS } from './shared.ts'

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
export const DNS_ASSERTION_SOURCES = ['RESPONSE_CODE', 'RESPONSE_TIME', 'TEXT_ANSWER', 'JSON_ANSWER'] as const

export const DnsRequest = StrictObject({
  query: Type.String({ minLength: 1, maxLength: 253 }),
  recordType: StringEnum(DNS_RECORD_TYPES),
  nameServer: Type.Optional(Nullable(Hostname)),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 53 })),
  protocol: Type.Optional(StringEnum(DNS_PROTOCOLS, { default: 'UDP' })),
  assertions: Type.Optional(AssertionList(DNS_ASSERTION_SOURCES)),
})

export const dnsCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.DNS.path,
  body: StrictObject({
    ...commonCheckFields,
    ...highFrequencyFields,
    request: DnsRequest,
    degradedResponseTime: ResponseTime(1_000, MAX_RESPONSE_TIME_MS),
    maxResponseTime: ResponseTime(2_000, MAX_RESPONSE_TIME_MS),
  }),
  assertionSources: DNS_ASSERTION_SOURCES,
  detail: { key: 'dnsCheckResult', schema: Nullable(DnsDetail) },
  analytics: {
    segment: CHECK_TYPE_CATALOG.DNS.analyticsSegment,
    metrics: { total: 'milliseconds' },
    groupBy: ['runLocation'],
    main: CHECK_TYPE_CATALOG.DNS.mainMetric,
  },
  runs: 'definition',
  jobFields: TIMED_JOB_FIELDS,
})
