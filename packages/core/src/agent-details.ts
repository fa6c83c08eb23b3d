/**
 * What the server reads of a run's detail (`outcome.detail` of the agent protocol), by check type. Agents run
 * on their owners' hosts at their own versions, so a posted detail is checked against its check type's schema
 * before anything reads it (alert variables, analytics, root cause analysis, the results API): a value of
 * another type or past its bound is a 400 naming it. Every field is optional (an agent without one: the server
 * reads it as absent, as it always did) and objects take fields not named here (newer agents add some). Bounds
 * are far above what a run produces, `[REDACTED]` in place of short secrets included.
 */

import { type Static, type TSchema, Type } from 'typebox'
import { Nullable } from './schema-helpers.ts'

/** No run, nor part of one, lasts a day. */
const DAY_MS = 86_400_000
/** A method, status text, log level, response code or date. */
const SHORT_TEXT = 1024
/** A URL, host name, certificate name, source location or request failure. */
const TEXT = 65_536
/** A response body (64 KiB as the runner keeps it), log line or stack. */
const LONG_TEXT = 1_048_576
/** Entries of one list: runs list at most 1,000 logs and requests; pages and tests have no cap of their own. */
const MAX_ENTRIES = 100_000
/** The days of 10,000 years either way: whatever date a certificate names. */
const CERTIFICATE_DAYS = 3_660_000
/** The store's 32-bit integer column of page indexes. */
const MAX_PAGE_INDEX = 2 ** 31 - 1

const Optional = Type.Optional
const Text = (maxLength: number) => Type.String({ maxLength })
/** Milliseconds of a run or one of its phases. */
export const DetailMilliseconds = Type.Number({ minimum: 0, maximum: DAY_MS })
/** Takes fields it does not name: a newer agent's are kept as sent. */
const Open = <T extends Record<string, TSchema>>(properties: T) => Type.Object(properties)
const List = <T extends TSchema>(item: T) => Type.Array(item, { maxItems: MAX_ENTRIES })
/** A status an HTTP answer carries (the outcome's `statusCode` too). */
const HttpStatus = Type.Integer({ minimum: 0, maximum: 999 })
const PageIndex = Type.Integer({ minimum: 0, maximum: MAX_PAGE_INDEX })

/**
 * Phases of a run by name: URL and API `wait dns tcp tls firstByte download total`, TCP `dns connection data
 * total`, DNS `total`. Root cause analysis compares every phase it finds, so any other is a duration too.
 */
const Phase = Optional(DetailMilliseconds)
export const DetailTimingPhases = Type.Object(
  {
    wait: Phase,
    dns: Phase,
    tcp: Phase,
    tls: Phase,
    firstByte: Phase,
    download: Phase,
    connection: Phase,
    data: Phase,
    total: Phase,
  },
  { additionalProperties: DetailMilliseconds, maxProperties: 50, propertyNames: { maxLength: 64 } },
)

/** A certificate the run read (URL and API checks; a script check's `sslCheckDomain`), or null. */
export const DetailCertificate = Nullable(
  Open({
    subject: Optional(Text(TEXT)),
    issuer: Optional(Text(TEXT)),
    validTo: Optional(Text(SHORT_TEXT)),
    daysRemaining: Optional(Type.Integer({ minimum: -CERTIFICATE_DAYS, maximum: CERTIFICATE_DAYS })),
    /** The `sslCheckDomain` a script check's certificate was read from. */
    domain: Optional(Text(TEXT)),
  }),
)

function JobLogLines() {
  const line = Open({
    time: Optional(Text(SHORT_TEXT)),
    level: Optional(Text(SHORT_TEXT)),
    text: Optional(Text(LONG_TEXT)),
  })
  return List(line)
}

/** URL and API checks (`urlCheckResult`, `apiCheckResult`): the runner's `HttpCheckResult`. */
export const HttpDetail = Open({
  request: Optional(Open({ method: Optional(Text(SHORT_TEXT)), url: Optional(Text(TEXT)) })),
  response: Optional(
    Nullable(
      Open({
        status: Optional(HttpStatus),
        statusText: Optional(Text(SHORT_TEXT)),
        headers: Optional(Open({ 'content-length': Optional(Text(SHORT_TEXT)) })),
        body: Optional(Text(LONG_TEXT)),
      }),
    ),
  ),
  timingPhases: Optional(DetailTimingPhases),
  tls: Optional(DetailCertificate),
  /** What an API check's setup and teardown scripts logged. */
  jobLog: Optional(Nullable(Open({ setup: Optional(JobLogLines()), tearDown: Optional(JobLogLines()) }))),
})

/** TCP checks (`tcpCheckResult`). */
export const TcpDetail = Open({ timingPhases: Optional(DetailTimingPhases) })

/** DNS checks (`dnsCheckResult`). */
export const DnsDetail = Open({
  responseCode: Optional(Nullable(Text(SHORT_TEXT))),
  timingPhases: Optional(DetailTimingPhases),
})

/** ICMP checks (`icmpCheckResult`): ping's summary, null when ping gave none. */
export const IcmpDetail = Open({
  summary: Optional(
    Nullable(
      Open({
        packetLoss: Optional(Type.Number({ minimum: 0, maximum: 100 })),
        latency: Optional(
          Nullable(
            Open({
              min: Optional(DetailMilliseconds),
              avg: Optional(DetailMilliseconds),
              max: Optional(DetailMilliseconds),
              stdDev: Optional(DetailMilliseconds),
            }),
          ),
        ),
      }),
    ),
  ),
})

const ScriptError = Open({ stack: Optional(Nullable(Text(LONG_TEXT))) })

/** A `test.step`, with the steps inside it (each nesting two levels of the detail deeper). */
const ScriptStep = Type.Cyclic(
  {
    AgentDetailScriptStep: Open({
      status: Optional(Text(SHORT_TEXT)),
      location: Optional(Nullable(Text(TEXT))),
      steps: Optional(List(Type.Ref('AgentDetailScriptStep'))),
    }),
  },
  'AgentDetailScriptStep',
)

/** One web vital of a page: its value in ms (CLS: a score), null when the page never reported it. */
const WebVital = Nullable(Open({ value: Optional(DetailMilliseconds) }))

/**
 * Browser, multi-step and suite checks (`browserCheckResult`, `multiStepCheckResult`,
 * `playwrightCheckResult`): the runner's `ScriptCheckResult`, with the certificate of `sslCheckDomain`. Its
 * artifact lists (`screenshots`, `traces`, `videos`) are checked where uploads are (paths inside the result).
 */
export const ScriptDetail = Open({
  tests: Optional(
    List(
      Open({
        failed: Optional(Type.Boolean()),
        steps: Optional(List(ScriptStep)),
        errors: Optional(List(ScriptError)),
      }),
    ),
  ),
  errors: Optional(List(ScriptError)),
  logs: Optional(
    List(
      Open({
        level: Optional(Text(SHORT_TEXT)),
        text: Optional(Text(LONG_TEXT)),
        pageIndex: Optional(Nullable(PageIndex)),
      }),
    ),
  ),
  network: Optional(
    List(
      Open({
        pageIndex: Optional(Nullable(PageIndex)),
        status: Optional(Nullable(HttpStatus)),
        failure: Optional(Nullable(Text(TEXT))),
      }),
    ),
  ),
  pages: Optional(
    List(
      Open({
        pageIndex: Optional(PageIndex),
        webVitals: Optional(
          Open({
            LCP: Optional(WebVital),
            CLS: Optional(WebVital),
            TBT: Optional(WebVital),
            FCP: Optional(WebVital),
            TTFB: Optional(WebVital),
          }),
        ),
      }),
    ),
  ),
  tls: Optional(DetailCertificate),
})

/** A posted detail may be null for every type: an agent whose run threw posts no detail. */
export const NullableHttpDetail = Nullable(HttpDetail)
export const NullableScriptDetail = Nullable(ScriptDetail)

/**
 * SSL monitors (`sslCheckResult`): the runner's `SslCheckResult`, the hosted product's `CheckResultSsl`
 * fields analytics reads.
 */
export const SslDetail = Open({
  tlsVersion: Optional(Nullable(Text(SHORT_TEXT))),
  cipherSuite: Optional(Nullable(Text(SHORT_TEXT))),
  daysUntilExpiry: Optional(
    Nullable(Type.Integer({ minimum: -CERTIFICATE_DAYS, maximum: CERTIFICATE_DAYS })),
  ),
  handshakeTimeMs: Optional(Nullable(DetailMilliseconds)),
  chainTrusted: Optional(Nullable(Type.Boolean())),
  hostnameVerified: Optional(Nullable(Type.Boolean())),
  response: Optional(
    Nullable(
      Open({
        ocspStapled: Optional(Nullable(Type.Boolean())),
        certificate: Optional(
          Nullable(
            Open({ keySizeBits: Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000 }))) }),
          ),
        ),
      }),
    ),
  ),
})

export type HttpDetail = Static<typeof HttpDetail>
export type TcpDetail = Static<typeof TcpDetail>
export type DnsDetail = Static<typeof DnsDetail>
export type IcmpDetail = Static<typeof IcmpDetail>
export type ScriptDetail = Static<typeof ScriptDetail>
export type SslDetail = Static<typeof SslDetail>
