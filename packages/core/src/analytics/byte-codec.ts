/** Little-endian varints and float64s in growable buffers: the stored form of rollup metrics. */

export const zigzag = (n: number) => (n >= 0 ? n * 2 : -n * 2 - 1)
export const unzigzag = (n: number) => (n % 2 === 0 ? n / 2 : -(n + 1) / 2)

export class ByteWriter {
  private buffer = new Uint8Array(256)
  private view = new DataView(this.buffer.buffer)
  length = 0

  reset(): this {
    this.length = 0
    return this
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra))
    grown.set(this.buffer.subarray(0, this.length))
    this.buffer = grown
    this.view = new DataView(grown.buffer)
  }

  byte(value: number): void {
    this.reserve(1)
    this.buffer[this.length++] = value
  }

  /** Unsigned integers up to 2^53. */
  varint(value: number): void {
    this.reserve(8)
    let rest = value
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest % 0x80) | 0x80
      rest = Math.floor(rest / 0x80)
    }
    this.buffer[this.length++] = rest
  }

  float64(value: number): void {
    this.reserve(8)
    this.view.setFloat64(this.length, value, true)
    this.length += 8
  }

  append(other: ByteWriter): void {
    this.appendBytes(other.buffer.subarray(0, other.length))
  }

  appendBytes(bytes: Uint8Array): void {
    this.reserve(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  /** A copy of what was written: the writer is reused. */
  bytes(): Uint8Array {
    return this.buffer.slice(0, this.length)
  }
}

export class ByteReader {
  position = 0
  private readonly buffer: Uint8Array
  private readonly view: DataView

  constructor(buffer: Uint8Array) {
    this.buffer = buffer
    this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength)
  }

  byte(): number {
    return this.buffer[this.position++] as number
  }

  peekByte(): number {
    return this.buffer[this.position] as number
  }

  /** The bytes from `start` to the current position (a view, not a copy). */
  bytesFrom(start: number): Uint8Array {
    return this.buffer.subarray(start, this.position)
  }

  varint(): number {
    let value = 0
    let scale = 1
    for (;;) {
      const byte = this.buffer[this.position++] as number
      value += (byte & 0x7f) * scale
      if (byte < 0x80) return value
      scale *= 0x80
    }
  }

  float64(): number {
    const value = this.view.getFloat64(this.position, true)
    this.position += 8
    return value
  }
}
