import type { CheckJob } from '@svc/core'
import type { Handshake } from './handshake.ts'

type BaselineConfig = NonNullable<CheckJob<'SSL'>['request']['sslConfig']['securityBaseline']>
type Severity = 'fail' | 'degrade' | 'ignore'

/** One rule of the security baseline as a run judged it. */
export interface BaselineRuleOutcome {
  rule: string
  severity: Severity
  passed: boolean
  expected: string
  actual: string | number | null
}

export interface BaselineOutcome {
  verdict: 'pass' | 'warn' | 'fail'
  grade: 'A-' | 'B' | 'F'
  rules: BaselineRuleOutcome[]
}

/** Signature hashes and cipher parts no client should accept any more. */
const WEAK_SIGNATURE = /MD5|SHA1(?!\d)/i
const WEAK_CIPHER = /_NULL_|_EXPORT|_anon_|_RC4_|_DES_|_3DES_|_MD5$/

/**
 * Judges the handshake by the monitor's security baseline. `knownBadCA`, `ocspMustStapleRespected` and
 * `sctPresent` are taken but not judged (svc keeps no list of distrusted CAs, and reads neither extension).
 */
export function judgeBaseline(config: BaselineConfig | undefined, found: Handshake): BaselineOutcome | null {
  if (config?.enabled === false) return null
  const leaf = found.chain[0]
  const version = found.protocol
  const keySize = leaf?.keySizeBits ?? null
  const rules: BaselineRuleOutcome[] = []
  const judge = (
    rule: string,
    given: { severity?: Severity } | undefined,
    fallback: Severity,
    expected: string,
    actual: string | number | null,
    passed: boolean,
  ) => rules.push({ rule, severity: given?.severity ?? fallback, passed, expected, actual })
  const min = config?.minTLSVersion?.value ?? 'TLS1.2'
  judge('minTLSVersion', config?.minTLSVersion, 'fail', `>= ${min}`, version, (version ?? '') >= min)
  const recommended = config?.recommendedTLSVersion?.value ?? 'TLS1.3'
  const recommendedOk = (version ?? '') >= recommended
  judge(
    'recommendedTLSVersion',
    config?.recommendedTLSVersion,
    'ignore',
    `>= ${recommended}`,
    version,
    recommendedOk,
  )
  // An elliptic-curve key of 256 bits is as strong as RSA of 3072: sizes are RSA sizes.
  const rsa = leaf?.keyAlgorithm === 'RSA'
  const minBits = config?.minKeySizeBits?.value ?? 2048
  judge(
    'minKeySizeBits',
    config?.minKeySizeBits,
    'fail',
    `>= ${minBits}`,
    keySize,
    !rsa || (keySize ?? 0) >= minBits,
  )
  const bits = config?.recommendedKeySizeBits?.value ?? 3072
  const bitsOk = !rsa || (keySize ?? 0) >= bits
  judge('recommendedKeySizeBits', config?.recommendedKeySizeBits, 'ignore', `>= ${bits}`, keySize, bitsOk)
  const signatures = found.chain.filter((c) => !c.selfSigned).map((c) => c.signatureAlgorithm)
  const weakSignature = signatures.find((name) => WEAK_SIGNATURE.test(name)) ?? null
  const signatureOk = weakSignature === null
  judge('weakSignatureAlgorithm', config?.weakSignatureAlgorithm, 'fail', 'none', weakSignature, signatureOk)
  const weakCipher = found.cipherSuite && WEAK_CIPHER.test(found.cipherSuite)
  judge('weakCipherSuite', config?.weakCipherSuite, 'fail', 'none', found.cipherSuite, !weakCipher)
  const broken = rules.filter((rule) => !rule.passed)
  if (broken.some((rule) => rule.severity === 'fail')) return { verdict: 'fail', grade: 'F', rules }
  if (broken.some((rule) => rule.severity === 'degrade')) return { verdict: 'warn', grade: 'B', rules }
  return { verdict: 'pass', grade: 'A-', rules }
}
