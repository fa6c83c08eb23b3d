import { Type } from 'typebox'
import type { MetricUnit } from '../analytics/metrics.ts'
import { StrictObject } from '../schema-helpers.ts'

/** Field pieces more than one check type's body uses. */

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'HEAD', 'DELETE', 'PATCH', 'OPTIONS'] as const
export const BODY_TYPES = ['JSON', 'FORM', 'RAW', 'GRAPHQL', 'NONE'] as const
export const IP_FAMILIES = ['IPv4', 'IPv6'] as const

/** Response-time limits in ms; up to 45000 where the account enables `extendedUptimeResponseTime`. */
export const MAX_RESPONSE_TIME_MS = 30_000
export const EXTENDED_MAX_RESPONSE_TIME_MS = 45_000

export const KeyValue = StrictObject({
  key: Type.String({ minLength: 1, maxLength: 1024 }),
  value: Type.String({ maxLength: 10_000 }),
  locked: Type.Optional(Type.Boolean({ default: false })),
})

export const Hostname = Type.String({ minLength: 1, maxLength: 253 })
export const Port = Type.Integer({ minimum: 1, maximum: 65535 })

/** TCP, API and URL checks go up to 45 s where the account allows it (the spec); other types stay at 30 s. */
export const ResponseTime = (fallback: number, maximum = EXTENDED_MAX_RESPONSE_TIME_MS) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum, default: fallback }))

export const Script = Type.String({
  minLength: 1,
  maxLength: 1_000_000,
  description: 'Node.js code using Playwright.',
})

/** The fields a run of an uptime check reads besides its request, always set once defaults apply. */
export const TIMED_JOB_FIELDS = ['degradedResponseTime', 'maxResponseTime', 'shouldFail'] as const

export const HTTP_METRICS = {
  responseTime: 'milliseconds',
  wait: 'milliseconds',
  dns: 'milliseconds',
  tcp: 'milliseconds',
  firstByte: 'milliseconds',
  download: 'milliseconds',
} as const satisfies Record<string, MetricUnit>
