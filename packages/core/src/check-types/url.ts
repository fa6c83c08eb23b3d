import { Type } from 'typebox'
import { NullableHttpDetail } from '../agent-details.ts'
import { AssertionList } from '../assertions.ts'
import { commonCheckFields } from '../checks/check-fields.ts'
import { highFrequencyFields } from '../checks/frequency.ts'
import { StrictObject, StringEnum } from '../schema-helpers.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'
import { HTTP_METRICS, IP_FAMILIES, ResponseTime, TIMED_JOB_FIELDS } from './shared.ts'

export const URL_ASSERTION_SOURCES = ['STATUS_CODE', 'RESPONSE_TIME'] as const

export const UrlRequest = StrictObject({
  url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://' }),
  // Hosted clients always send it; a URL monitor only ever sends GET (the server refuses the others).
  method: Type.Optional(Type.String({ description: 'Only GET, the method a URL monitor sends' })),
  followRedirects: Type.Optional(Type.Boolean({ default: true })),
  skipSSL: Type.Optional(Type.Boolean({ default: false })),
  ipFamily: Type.Optional(StringEnum(IP_FAMILIES, { default: 'IPv4' })),
  assertions: Type.Optional(AssertionList(URL_ASSERTION_SOURCES)),
})

export const urlCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.URL.path,
  body: StrictObject({
    ...commonCheckFields,
    ...highFrequencyFields,
    request: UrlRequest,
    degradedResponseTime: ResponseTime(10_000),
    maxResponseTime: ResponseTime(20_000),
  }),
  assertionSources: URL_ASSERTION_SOURCES,
  detail: { key: 'urlCheckResult', schema: NullableHttpDetail },
  analytics: {
    segment: CHECK_TYPE_CATALOG.URL.analyticsSegment,
    metrics: HTTP_METRICS,
    groupBy: ['runLocation', 'statusCode'],
    main: CHECK_TYPE_CATALOG.URL.mainMetric,
  },
  runs: 'definition',
  jobFields: TIMED_JOB_FIELDS,
})
