import { ByteReader, ByteWriter } from '@svc/core'

/**
 * A compact detail (stored-detail.ts: `[timings, certificate, signature]` as JSON) as bytes, as SQLite
 * stores it (issue 31: ~25 bytes fewer per passing result): a format byte, each timing as its hundredths
 * when that is exact (else a float64), the certificate as JSON text (or nothing), and the 12-character
 * base64url signature as its 9 bytes. Reading it back gives the same JSON text, so nothing past the
 * store sees the difference; a detail this can't give back exactly stays text.
 */

const FORMAT = 1
const PHASE_COUNT = 7
const SIGNATURE_BYTES = 9
const writer = new ByteWriter()

export function compactDetailBytes(detail: string): Uint8Array | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(detail)
  } catch {
    return undefined
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return undefined
  const [phases, tls, signature] = parsed as unknown[]
  if (!Array.isArray(phases) || phases.length !== PHASE_COUNT || typeof signature !== 'string')
    return undefined
  const signatureBytes = Buffer.from(signature, 'base64url')
  if (signatureBytes.length !== SIGNATURE_BYTES || signatureBytes.toString('base64url') !== signature)
    return undefined
  writer.reset().byte(FORMAT)
  for (const phase of phases) {
    if (typeof phase !== 'number' || !Number.isFinite(phase)) return undefined
    const hundredths = Math.round(phase * 100)
    // Even: exact hundredths; odd: a float64 follows.
    if (hundredths >= 0 && hundredths / 100 === phase && !Object.is(phase, -0)) writer.varint(hundredths * 2)
    else {
      writer.varint(1)
      writer.float64(phase)
    }
  }
  writer.appendBytes(signatureBytes)
  if (tls !== null) writer.appendBytes(Buffer.from(JSON.stringify(tls)))
  const bytes = writer.bytes()
  return detailOfCompactBytes(bytes) === detail ? bytes : undefined
}

export function detailOfCompactBytes(bytes: Uint8Array): string {
  const reader = new ByteReader(bytes)
  if (reader.byte() !== FORMAT) throw new Error('unknown compact detail format')
  const phases: number[] = []
  for (let i = 0; i < PHASE_COUNT; i++) {
    const code = reader.varint()
    phases.push(code % 2 === 0 ? code / 2 / 100 : reader.float64())
  }
  const start = reader.position
  reader.position += SIGNATURE_BYTES
  const signature = Buffer.from(reader.bytesFrom(start)).toString('base64url')
  const rest = bytes.subarray(reader.position)
  const tls = rest.length === 0 ? 'null' : Buffer.from(rest).toString()
  return `[${JSON.stringify(phases)},${tls},${JSON.stringify(signature)}]`
}
