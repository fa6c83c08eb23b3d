import { Type } from 'typebox'
import { IcmpDetail } from '../agent-details.ts'
import { AssertionList } from '../assertions.ts'
import { commonCheckFields } from '../checks/check-fields.ts'
import { highFrequencyFields } from '../checks/frequency.ts'
import { Nullable, StrictObject, StringEnum } from '../schema-helpers.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'
import { Hostname, IP_FAMILIES } from './shared.ts'

export const ICMP_ASSERTION_SOURCES = ['LATENCY', 'JSON_RESPONSE'] as const

export const IcmpRequest = StrictObject({
  hostname: Hostname,
  pingCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  ipFamily: Type.Optional(StringEnum(IP_FAMILIES, { default: 'IPv4' })),
  assertions: Type.Optional(AssertionList(ICMP_ASSERTION_SOURCES)),
})

const PacketLoss = (fallback: number) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: fallback }))

export const icmpCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.ICMP.path,
  body: StrictObject({
    ...commonCheckFields,
    ...highFrequencyFields,
    request: IcmpRequest,
    degradedPacketLossThreshold: PacketLoss(10),
    maxPacketLossThreshold: PacketLoss(20),
  }),
  assertionSources: ICMP_ASSERTION_SOURCES,
  detail: { key: 'icmpCheckResult', schema: Nullable(IcmpDetail) },
  analytics: {
    segment: CHECK_TYPE_CATALOG.ICMP.analyticsSegment,
    metrics: {
      packetLoss: 'percentage',
      latencyMin: 'milliseconds',
      latencyMax: 'milliseconds',
      latencyAvg: 'milliseconds',
      latencyStdDev: 'milliseconds',
    },
    groupBy: ['runLocation'],
    main: CHECK_TYPE_CATALOG.ICMP.mainMetric,
  },
  runs: 'definition',
  jobFields: ['degradedPacketLossThreshold', 'maxPacketLossThreshold', 'shouldFail'],
})
