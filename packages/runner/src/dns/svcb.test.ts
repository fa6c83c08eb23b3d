import assert from 'node:assert/strict'
import { test } from 'node:test'
import { presentSvcb } from './svcb.ts'

const u16 = (value: number) => [value >> 8, value & 0xff]
const param = (key: number, value: number[]) => [...u16(key), ...u16(value.length), ...value]

test('SVCB params read in presentation form: mandatory, no-default-alpn, ipv6hint, escaped names', () => {
  const rdata = Uint8Array.from([
    ...u16(16),
    ...[3, ...Buffer.from('a.b'), 3, ...Buffer.from('com'), 0],
    ...param(0, [...u16(1), ...u16(4)]),
    ...param(1, [2, ...Buffer.from('h3')]),
    ...param(2, []),
    ...param(6, [...Array(15).fill(0), 1, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, ...Array(6).fill(0), 0, 1]),
    ...param(65535, []),
  ])
  assert.equal(
    presentSvcb(rdata),
    '16 a\\.b.com. mandatory=alpn,ipv4hint alpn="h3" no-default-alpn ipv6hint=::1,2001:db8:0:1::1 key65535',
  )
})

test('alpn ids and quoted values are escaped as RFC 9460 Appendix A shows', () => {
  const rdata = Uint8Array.from([
    ...u16(1),
    0,
    ...param(1, [4, ...Buffer.from('h,\\2'), 2, ...Buffer.from('h3')]),
    ...param(7, [...Buffer.from('/q"')]),
  ])
  assert.equal(presentSvcb(rdata), '1 . alpn="h\\\\,\\\\\\\\2,h3" dohpath="/q\\""')
})

test('SVCB RDATA that does not decode reads in the generic form of RFC 3597', () => {
  // ipv4hint of 3 bytes; keys out of order; RDATA ending inside the target name
  const short = Uint8Array.from([...u16(1), 0, ...param(4, [1, 2, 3])])
  assert.equal(presentSvcb(short), '\\# 10 00010000040003010203')
  const unordered = Uint8Array.from([...u16(1), 0, ...param(3, u16(1)), ...param(1, [1, 0x61])])
  assert.match(presentSvcb(unordered), /^\\# 15 /)
  assert.equal(presentSvcb(Uint8Array.from([0, 1, 5, 0x61])), '\\# 4 00010561')
})
