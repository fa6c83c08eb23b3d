import { Type } from 'typebox'
import { NullableHttpDetail } from '../agent-details.ts'
import { AssertionList } from '../assertions.ts'
import { commonCheckFields } from '../checks/check-fields.ts'
import { highFrequencyFields } from '../checks/frequency.ts'
import { Nullable, StrictObject, StringEnum } from '../schema-helpers.ts'
import { apiScriptFields } from './api-scripts.ts'
import { CHECK_TYPE_CATALOG } from './catalog.ts'
import { defineCheckType } from './definition.ts'
import {
  BODY_TYPES,
  HTTP_METHODS,
  HTTP_METRICS,
  IP_FAMILIES,
  KeyValue,
  ResponseTime,
  TIMED_JOB_FIELDS,
} from './shared.ts'

export const API_ASSERTION_SOURCES = [
  'STATUS_CODE',
  'JSON_BODY',
  'TEXT_BODY',
  'HEADERS',
  'RESPONSE_TIME',
] as const

export const ApiRequest = StrictObject({
  method: Type.Optional(StringEnum(HTTP_METHODS, { default: 'GET' })),
  // `{{GROUP_BASE_URL}}/path` (or another variable) is an http(s) URL once the run fills it in.
  url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^(https?://|\\{\\{)' }),
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
  assertions: Type.Optional(AssertionList(API_ASSERTION_SOURCES)),
})

export const apiCheckType = defineCheckType({
  path: CHECK_TYPE_CATALOG.API.path,
  body: StrictObject({
    ...commonCheckFields,
    ...highFrequencyFields,
    request: ApiRequest,
    degradedResponseTime: ResponseTime(10_000),
    maxResponseTime: ResponseTime(20_000),
    ...apiScriptFields('the check'),
  }),
  assertionSources: API_ASSERTION_SOURCES,
  detail: { key: 'apiCheckResult', schema: NullableHttpDetail },
  analytics: {
    segment: CHECK_TYPE_CATALOG.API.analyticsSegment,
    metrics: HTTP_METRICS,
    groupBy: ['runLocation', 'statusCode'],
    main: CHECK_TYPE_CATALOG.API.mainMetric,
  },
  runs: 'definition',
  jobFields: TIMED_JOB_FIELDS,
})
