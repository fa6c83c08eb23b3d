import { Type } from 'typebox'
import { TcpDetail } from '../agent-details.ts'
import { AssertionList } from '../assertions.ts'
import { commonCheckFields } from '../checks/check-fields.ts'
import { highFrequencyFields } from '../checks/frequency.ts'
import { Nullable, StrictObject, StringEnum } from '../schema-helpers.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'
import { Hostname, IP_FAMILIES, Port, ResponseTime, TIMED_JOB_FIELDS } from './shared.ts'

export const TCP_ASSERTION_SOURCES = ['RESPONSE_DATA', 'RESPONSE_TIME'] as const

export const TcpRequest = StrictObject({
  hostname: Hostname,
  port: Port,
  // No default: the hosted schema's data is absent or non-empty, never ''.
  data: Type.Optional(Type.String({ maxLength: 65_536 })),
  ipFamily: Type.Optional(StringEnum(IP_FAMILIES, { default: 'IPv4' })),
  assertions: Type.Optional(AssertionList(TCP_ASSERTION_SOURCES)),
})

export const tcpCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.TCP.path,
  body: StrictObject({
    ...commonCheckFields,
    ...highFrequencyFields,
    request: TcpRequest,
    degradedResponseTime: ResponseTime(4_000),
    maxResponseTime: ResponseTime(5_000),
  }),
  assertionSources: TCP_ASSERTION_SOURCES,
  detail: { key: 'tcpCheckResult', schema: Nullable(TcpDetail) },
  analytics: {
    segment: CHECK_TYPE_CATALOG.TCP.analyticsSegment,
    metrics: { total: 'milliseconds', dns: 'milliseconds', connection: 'milliseconds', data: 'milliseconds' },
    groupBy: ['runLocation'],
    main: CHECK_TYPE_CATALOG.TCP.mainMetric,
  },
  runs: 'definition',
  jobFields: TIMED_JOB_FIELDS,
})
