import { type AssertionOutcome, type CheckJob, evaluateAssertion } from '@svc/core'
import { describeAssertionFailure } from '../describe-assertion.ts'
import { classifyNetworkError, isLookupFailure } from '../http/classify-error.ts'
import { type RunError, type RunnerContext, type RunVerdict, verdictOf } from '../types.ts'
import { type BaselineOutcome, judgeBaseline } from './baseline.ts'
import {
  type CertificateFacts,
  type Handshake,
  type HandshakeFailure,
  handshake,
  round,
} from './handshake.ts'

export type SslJob = CheckJob<'SSL'>

/** The detail of an SSL monitor's run (`sslCheckResult`): the hosted product's `CheckResultSsl`. */
export interface SslCheckResult {
  tlsVersion: string | null
  cipherSuite: string | null
  daysUntilExpiry: number | null
  handshakeTimeMs: number | null
  chainTrusted: boolean | null
  hostnameVerified: boolean | null
  baselineVerdict: BaselineOutcome['verdict'] | null
  baselineGrade: BaselineOutcome['grade'] | null
  /** Why the run failed: `CONNECTION`, `TIMEOUT`, `CERTIFICATE_EXPIRED`, `CERTIFICATE_NOT_YET_VALID`, `CHAIN_UNTRUSTED`, `HOSTNAME_MISMATCH`, `SECURITY_BASELINE` or `ASSERTION`. */
  failureCategory: string | null
  requestError: string | null
  request: { hostname: string; port: number; serverName: string | null; ipFamily: string }
  assertions: AssertionOutcome[]
  response: SslResponse | null
}

export interface SslResponse {
  resolvedIp: string | null
  protocol: string | null
  cipherSuite: string | null
  handshakeTimeMs: number
  hostnameVerified: boolean
  chainTrusted: boolean
  daysUntilExpiry: number | null
  ocspStapled: boolean
  chainTrustReason?: string
  chainTrustDetail?: string
  incompleteChain: boolean
  missingIntermediate?: string
  securityBaseline: BaselineOutcome | null
  certificate: CertificateFacts | null
  chain: CertificateFacts[]
}

export type SslRunResult = RunVerdict & { checkResult: SslCheckResult }

/** OpenSSL's reasons for a chain that stops short of a root it has: an intermediate is missing. */
const INCOMPLETE_CHAIN = new Set(['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'])

/**
 * Connects, completes a TLS handshake and judges what it showed: an expired (or not yet valid) certificate,
 * an untrusted chain (unless `skipChainValidation`), a name the certificate does not cover, a failed
 * security-baseline rule or assertion fails the run; expiry within `alertDaysBeforeExpiry`, a baseline rule
 * of severity `degrade` or a slow handshake degrades it. Never throws.
 */
export async function runSslCheck(job: SslJob, ctx: RunnerContext): Promise<SslRunResult> {
  const startedAt = ctx.now()
  const config = job.request.sslConfig
  const serverName = config.serverName || config.hostname.replace(/^\[(.*)\]$/, '$1')
  const request = {
    hostname: config.hostname,
    port: config.port ?? 443,
    serverName: config.serverName || null,
    ipFamily: config.ipFamily ?? 'IPv4',
  }
  let found: Handshake
  try {
    found = await handshake(
      { ...request, serverName, ipFamily: request.ipFamily, timeoutMs: config.handshakeTimeoutMs ?? 10_000 },
      ctx,
    )
  } catch (caught) {
    const failure = caught as HandshakeFailure
    const error = classifyNetworkError(failure.reason, failure.timedOut)
    if (failure.timedOut) error.message = `No TLS handshake within ${config.handshakeTimeoutMs ?? 10_000} ms`
    const verdict = verdictOf(
      {
        failed: true,
        error,
        responseTime: failure.elapsedMs,
        degradedResponseTime: job.degradedResponseTime,
        maxResponseTime: job.maxResponseTime,
        shouldFail: job.shouldFail,
        invertible: !isLookupFailure(failure.reason),
      },
      startedAt,
      ctx.now(),
    )
    return { ...verdict, checkResult: unreached(request, failure, error) }
  }
  return judge(job, found, request, startedAt, ctx)
}

function judge(
  job: SslJob,
  found: Handshake,
  request: SslCheckResult['request'],
  startedAt: Date,
  ctx: RunnerContext,
): SslRunResult {
  const config = job.request.sslConfig
  const trust = trustOf(job, found, ctx)
  const { leaf, days, expired, notYetValid, chainTrusted, chainFails, baseline } = trust
  const response = sslResponse(found, trust)
  const assertions = (job.request.assertions ?? []).map((assertion) => evaluateSsl(assertion, response))
  const failure = firstFailure({ leaf, expired, notYetValid, chainFails, found, baseline, assertions, days })
  const degradedByCertificate =
    (days !== null && days < (config.alertDaysBeforeExpiry ?? 20)) ||
    baseline?.rules.some((rule) => !rule.passed && rule.severity === 'degrade') === true
  const verdict = verdictOf(
    {
      failed: failure !== null,
      error: failure?.error ?? null,
      responseTime: found.handshakeTimeMs,
      degradedResponseTime: job.degradedResponseTime,
      maxResponseTime: job.maxResponseTime,
      shouldFail: job.shouldFail,
    },
    startedAt,
    ctx.now(),
  )
  return {
    ...verdict,
    // A certificate near its expiry degrades a passing run, as a slow handshake does.
    isDegraded: verdict.isDegraded || (!verdict.hasFailures && !job.shouldFail && degradedByCertificate),
    checkResult: {
      tlsVersion: found.protocol,
      cipherSuite: found.cipherSuite,
      daysUntilExpiry: days,
      handshakeTimeMs: found.handshakeTimeMs,
      chainTrusted,
      hostnameVerified: found.hostnameVerified,
      baselineVerdict: baseline?.verdict ?? null,
      baselineGrade: baseline?.grade ?? null,
      failureCategory: failure?.category ?? null,
      requestError: null,
      request,
      assertions,
      response,
    },
  }
}

/** What the handshake says of the certificate: its dates, whether its chain is trusted, its baseline. */
interface Trust {
  leaf: CertificateFacts | null
  days: number | null
  expired: boolean
  notYetValid: boolean
  trustReason: string
  chainTrusted: boolean
  chainFails: boolean
  baseline: BaselineOutcome | null
}

function trustOf(job: SslJob, found: Handshake, ctx: RunnerContext): Trust {
  const config = job.request.sslConfig
  const leaf = found.chain[0] ?? null
  const expired = leaf !== null && new Date(leaf.validTo) <= ctx.now()
  const notYetValid = leaf !== null && new Date(leaf.validFrom) > ctx.now()
  const trustReason = found.chainTrustReason ?? ''
  // An expired leaf is reported as such, not as an untrusted chain.
  const chainTrusted = found.chainTrusted || (expired && trustReason === 'CERT_HAS_EXPIRED')
  const chainFails = !chainTrusted && !config.skipChainValidation
  const reachedTrust = leaf !== null && !expired && !notYetValid && !chainFails && found.hostnameVerified
  const baseline = reachedTrust ? judgeBaseline(config.securityBaseline, found) : null
  const days = leaf?.daysUntilExpiry ?? null
  return { leaf, days, expired, notYetValid, trustReason, chainTrusted, chainFails, baseline }
}

function sslResponse(found: Handshake, trust: Trust): SslResponse {
  const { trustReason, chainTrusted } = trust
  return {
    resolvedIp: found.resolvedIp,
    protocol: found.protocol,
    cipherSuite: found.cipherSuite,
    handshakeTimeMs: found.handshakeTimeMs,
    hostnameVerified: found.hostnameVerified,
    chainTrusted,
    daysUntilExpiry: trust.days,
    ocspStapled: found.ocspStapled,
    ...(chainTrusted ? {} : { chainTrustReason: trustReason, chainTrustDetail: trustDetail(trustReason) }),
    incompleteChain: INCOMPLETE_CHAIN.has(trustReason),
    ...(INCOMPLETE_CHAIN.has(trustReason) ? { missingIntermediate: found.chain.at(-1)?.issuerCN ?? '' } : {}),
    securityBaseline: trust.baseline,
    certificate: trust.leaf,
    chain: found.chain,
  }
}

interface Findings {
  leaf: CertificateFacts | null
  expired: boolean
  notYetValid: boolean
  chainFails: boolean
  found: Handshake
  baseline: BaselineOutcome | null
  assertions: AssertionOutcome[]
  days: number | null
}

/** What fails the run, in the order a person fixing it would look: the certificate, its chain, its name. */
function firstFailure(f: Findings): { category: string; error: RunError } | null {
  const fail = (category: string, message: string) => ({
    category,
    error: { type: 'ASSERTION', message } as RunError,
  })
  if (!f.leaf) return fail('CONNECTION', 'The server presented no certificate')
  if (f.expired) return fail('CERTIFICATE_EXPIRED', `The certificate expired on ${f.leaf.validTo}`)
  if (f.notYetValid)
    return fail('CERTIFICATE_NOT_YET_VALID', `The certificate is valid from ${f.leaf.validFrom}`)
  if (f.chainFails) {
    const reason = f.found.chainTrustReason ?? ''
    return fail('CHAIN_UNTRUSTED', `The certificate chain is not trusted (${reason}): ${trustDetail(reason)}`)
  }
  if (!f.found.hostnameVerified)
    return fail('HOSTNAME_MISMATCH', f.found.hostnameError ?? 'Hostname mismatch')
  const broken = f.baseline?.rules.find((rule) => !rule.passed && rule.severity === 'fail')
  if (broken) {
    const actual = JSON.stringify(broken.actual)
    return fail(
      'SECURITY_BASELINE',
      `Security baseline: ${broken.rule} expects ${broken.expected}, got ${actual}`,
    )
  }
  const assertion = f.assertions.find((outcome) => !outcome.passed)
  if (assertion) return fail('ASSERTION', describeAssertionFailure(assertion))
  return null
}

/** The value each assertion source reads (the hosted product's SSL monitor sources). */
function evaluateSsl(assertion: NonNullable<SslJob['request']['assertions']>[number], response: SslResponse) {
  switch (assertion.source) {
    case 'CERTIFICATE':
      return evaluateAssertion(assertion, response.certificate ?? {})
    case 'CONNECTION': {
      const { resolvedIp, protocol, cipherSuite, hostnameVerified, chainTrusted, ocspStapled } = response
      const connection = {
        tlsVersion: protocol,
        cipherSuite,
        hostnameVerified,
        chainTrusted,
        ocspStapled,
        resolvedIp,
      }
      return evaluateAssertion(assertion, connection)
    }
    case 'RESPONSE_TIME':
      return evaluateAssertion({ ...assertion, property: '' }, Math.round(response.handshakeTimeMs))
    case 'JSON_RESPONSE':
      return evaluateAssertion(assertion, response)
    case 'TEXT_RESPONSE': {
      // The hosted product's builder names the regex as the property.
      const regex = assertion.regex || assertion.property || null
      return {
        ...evaluateAssertion({ ...assertion, property: '', regex }, JSON.stringify(response)),
        ...assertion,
      }
    }
  }
}

const TRUST_DETAILS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the chain ends in a self-signed root that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    'the server omitted an intermediate certificate, or its root is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the server omitted an intermediate certificate',
  CERT_HAS_EXPIRED: 'a certificate of the chain has expired',
  CERT_NOT_YET_VALID: 'a certificate of the chain is not valid yet',
}

function trustDetail(reason: string): string {
  return TRUST_DETAILS[reason] ?? reason
}

function unreached(
  request: SslCheckResult['request'],
  failure: HandshakeFailure,
  error: RunError,
): SslCheckResult {
  return {
    tlsVersion: null,
    cipherSuite: null,
    daysUntilExpiry: null,
    handshakeTimeMs: null,
    chainTrusted: null,
    hostnameVerified: null,
    baselineVerdict: null,
    baselineGrade: null,
    failureCategory: failure.timedOut ? 'TIMEOUT' : 'CONNECTION',
    requestError: `${error.message} (after ${round(failure.elapsedMs)} ms)`,
    request,
    assertions: [],
    response: null,
  }
}
