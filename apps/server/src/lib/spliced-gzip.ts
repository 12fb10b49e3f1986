/**
 * A gzip (RFC 1952) body written from pieces without running a compressor per request
 * (docs/decisions/0057). Three kinds of pieces:
 *
 * - a *segment*: bytes compressed once with zlib (raw deflate ending in a sync flush, so byte-aligned and not
 *   final) and kept, such as a region's GeoJSON geometry; copied as they are;
 * - a *constant*: text repeated in every feature (`,"fill-opacity":0.75,"stroke":…`): written as deflate
 *   back-references to its previous occurrence when that lies within the 32 KiB window, else as literals;
 * - a *value*: per-request text (a count, a colour): written as literals, or as a back-reference to the same
 *   text of the same slot when it was the last one written there (an id repeated as `code`).
 *
 * Values and constants go into fixed-Huffman blocks (RFC 1951 §3.2.6); a segment closes the open block with
 * an empty stored block so that it starts byte-aligned. The CRC-32 of the uncompressed text is combined from
 * the pieces' own CRCs (zlib's crc32_combine), so the uncompressed body is never materialised.
 */
import { constants, deflateRawSync } from 'node:zlib'

const POLY = 0xedb88320
const CRC_TABLE = new Int32Array(256)
for (let n = 0; n < 256; n++) {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1
  CRC_TABLE[n] = c
}

/** CRC-32 of bytes continuing `crc` (the finished CRC of what came before, 0 at the start). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 255]! ^ (c >>> 8)
  return ~c >>> 0
}

/** a(x) · b(x) modulo the CRC polynomial (zlib's multmodp; both reflected). */
function multmodp(a: number, b: number): number {
  if (a === 0) return 0
  let m = 0x80000000
  let p = 0
  for (;;) {
    if (a & m) {
      p ^= b
      if ((a & (m - 1)) === 0) break
    }
    m >>>= 1
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1
  }
  return p >>> 0
}

const X2N = new Array<number>(32)
{
  let p = 1 << 30
  X2N[0] = p
  for (let n = 1; n < 32; n++) X2N[n] = p = multmodp(p, p)
}

/** x^(8·bytes) modulo the polynomial: the operator that moves a CRC past `bytes` bytes (crc32_combine_gen). */
function crcShift(bytes: number): number {
  let p = 0x80000000
  let k = 3
  for (let n = bytes; n > 0; n = Math.floor(n / 2), k++) if (n % 2) p = multmodp(X2N[k & 31]!, p)
  return p
}

/** CRC-32 of A‖B from crc(A), crc(B) and the shift operator of B's length (crc32_combine_op). */
export const crc32Combine = (crcA: number, crcB: number, shiftB: number) => (multmodp(shiftB, crcA) ^ crcB) >>> 0

/** A precompressed, byte-aligned raw-deflate piece with the CRC and length of its text. */
export interface GzipSegment {
  bytes: Buffer
  length: number
  crc: number
  shift: number
}

/** Compresses text once into a segment (zlib level 6, sync flush: byte-aligned, not final, no history). */
export function gzipSegment(text: string | Buffer): GzipSegment {
  const raw = typeof text === 'string' ? Buffer.from(text) : text
  return {
    bytes: deflateRawSync(raw, { level: 6, finishFlush: constants.Z_SYNC_FLUSH }),
    length: raw.length,
    crc: crc32(raw),
    shift: crcShift(raw.length),
  }
}

/**
 * A constant text of a template: its bytes, CRC, the CRC shift of its length as four byte tables, and where
 * it was last written. Made once (`constantPiece`) and passed as it is, so writing it needs no lookup.
 */
export interface ConstantPiece {
  text: string
  bytes: Buffer
  crc: number
  shiftTables: Int32Array
  lastWriter: number
  lastPos: number
}

export function constantPiece(text: string): ConstantPiece {
  const bytes = Buffer.from(text)
  const shift = crcShift(bytes.length)
  const shiftTables = new Int32Array(1024)
  for (let j = 0; j < 4; j++) for (let b = 0; b < 256; b++) shiftTables[j * 256 + b] = multmodp(shift, (b << (8 * j)) >>> 0)
  return { text, bytes, crc: crc32(bytes), shiftTables, lastWriter: -1, lastPos: 0 }
}

// The fixed Huffman codes of RFC 1951 §3.2.6, bit-reversed for LSB-first packing, with extra bits merged in.
const reverse = (code: number, bits: number) => {
  let r = 0
  for (let i = 0; i < bits; i++) r = (r << 1) | ((code >>> i) & 1)
  return r
}
const fixedCode = (symbol: number): [number, number] =>
  symbol < 144
    ? [reverse(0x30 + symbol, 8), 8]
    : symbol < 256
      ? [reverse(0x190 + symbol - 144, 9), 9]
      : symbol < 280
        ? [reverse(symbol - 256, 7), 7]
        : [reverse(0xc0 + symbol - 280, 8), 8]
const LITERAL_BITS = new Int32Array(256)
const LITERAL_COUNT = new Uint8Array(256)
for (let b = 0; b < 256; b++) [LITERAL_BITS[b], LITERAL_COUNT[b]] = fixedCode(b)
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
const LENGTH_BITS = new Int32Array(259)
const LENGTH_COUNT = new Uint8Array(259)
for (let code = 0; code < LENGTH_BASE.length; code++) {
  const [bits, count] = fixedCode(257 + code)
  const end = code + 1 < LENGTH_BASE.length ? LENGTH_BASE[code + 1]! : 259
  for (let length = LENGTH_BASE[code]!; length < end; length++) {
    LENGTH_BITS[length] = bits | ((length - LENGTH_BASE[code]!) << count)
    LENGTH_COUNT[length] = count + LENGTH_EXTRA[code]!
  }
}
const DISTANCE_BITS = new Int32Array(32769)
const DISTANCE_COUNT = new Uint8Array(32769)
{
  let base = 1
  for (let code = 0; code < 30; code++) {
    const extra = code < 4 ? 0 : (code >> 1) - 1
    for (let d = base; d < base + (1 << extra); d++) {
      DISTANCE_BITS[d] = reverse(code, 5) | ((d - base) << 5)
      DISTANCE_COUNT[d] = 5 + extra
    }
    base += 1 << extra
  }
}
const WINDOW = 32768
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])

let writers = 0

/** Writes one gzip body; pieces are appended in order, `finish()` returns the body. */
export class SplicedGzip {
  private out: Buffer
  private at = GZIP_HEADER.length
  private bitBuf = 0
  private bitCount = 0
  private inBlock = false
  /** uncompressed bytes so far */
  private pos = 0
  private crc = 0
  private readonly id = writers++
  private readonly slotText: string[] = []
  private readonly slotPos: number[] = []
  private readonly slotLength: number[] = []

  constructor(capacity = 1 << 16) {
    this.out = Buffer.allocUnsafe(Math.max(capacity, 64))
    GZIP_HEADER.copy(this.out, 0)
  }

  /** Uncompressed bytes written. */
  get length() {
    return this.pos
  }

  private ensure(bytes: number) {
    if (this.at + bytes + 16 <= this.out.length) return
    const next = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.at + bytes + 1024))
    this.out.copy(next, 0, 0, this.at)
    this.out = next
  }

  private bits(value: number, count: number) {
    this.bitBuf |= value << this.bitCount
    this.bitCount += count
    while (this.bitCount >= 8) {
      this.out[this.at++] = this.bitBuf & 255
      this.bitBuf >>>= 8
      this.bitCount -= 8
    }
  }

  private open() {
    if (this.inBlock) return
    this.bits(2, 3) // BFINAL 0, BTYPE 01 (fixed Huffman)
    this.inBlock = true
  }

  /** Ends the open block and aligns to a byte with an empty stored block (a sync flush). */
  private align() {
    if (!this.inBlock) return
    this.ensure(8)
    this.bits(0, 7) // end of block
    this.bits(0, 3) // BFINAL 0, BTYPE 00
    if (this.bitCount > 0) this.bits(0, 8 - this.bitCount)
    this.out[this.at++] = 0
    this.out[this.at++] = 0
    this.out[this.at++] = 0xff
    this.out[this.at++] = 0xff
    this.inBlock = false
  }

  private literals(bytes: Uint8Array) {
    this.ensure(bytes.length * 2)
    const out = this.out
    let at = this.at
    let bitBuf = this.bitBuf
    let bitCount = this.bitCount
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!
      bitBuf |= LITERAL_BITS[b]! << bitCount
      bitCount += LITERAL_COUNT[b]!
      while (bitCount >= 8) {
        out[at++] = bitBuf & 255
        bitBuf >>>= 8
        bitCount -= 8
      }
    }
    this.at = at
    this.bitBuf = bitBuf
    this.bitCount = bitCount
  }

  /** `length` bytes copied from `distance` back, in matches of at most 258 bytes. */
  private copy(length: number, distance: number) {
    this.ensure(Math.ceil(length / 258) * 5)
    const distanceBits = DISTANCE_BITS[distance]!
    const distanceCount = DISTANCE_COUNT[distance]!
    const out = this.out
    let at = this.at
    let bitBuf = this.bitBuf
    let bitCount = this.bitCount
    while (length > 0) {
      const n = length > 258 ? (length - 258 < 3 ? length - 3 : 258) : length
      bitBuf |= LENGTH_BITS[n]! << bitCount
      bitCount += LENGTH_COUNT[n]!
      while (bitCount >= 8) {
        out[at++] = bitBuf & 255
        bitBuf >>>= 8
        bitCount -= 8
      }
      bitBuf |= distanceBits << bitCount
      bitCount += distanceCount
      while (bitCount >= 8) {
        out[at++] = bitBuf & 255
        bitBuf >>>= 8
        bitCount -= 8
      }
      length -= n
    }
    this.at = at
    this.bitBuf = bitBuf
    this.bitCount = bitCount
  }

  /** Text that differs per request; with a slot, the same text as that slot's last one is a back-reference. */
  value(text: string, slot = -1) {
    if (!this.inBlock) this.open()
    if (slot >= 0 && this.slotText[slot] === text) {
      const distance = this.pos - this.slotPos[slot]!
      const length = this.slotLength[slot]!
      if (distance <= WINDOW && length >= 3) {
        this.slotPos[slot] = this.pos
        this.copy(length, distance)
        this.advance(text, length)
        return
      }
    }
    let length = text.length
    this.ensure(length * 2)
    const out = this.out
    let at = this.at
    let bitBuf = this.bitBuf
    let bitCount = this.bitCount
    let c = ~this.crc
    let i = 0
    for (; i < length; i++) {
      const b = text.charCodeAt(i)
      if (b > 127) break
      bitBuf |= LITERAL_BITS[b]! << bitCount
      bitCount += LITERAL_COUNT[b]!
      while (bitCount >= 8) {
        out[at++] = bitBuf & 255
        bitBuf >>>= 8
        bitCount -= 8
      }
      c = CRC_TABLE[(c ^ b) & 255]! ^ (c >>> 8)
    }
    this.at = at
    this.bitBuf = bitBuf
    this.bitCount = bitCount
    this.crc = ~c >>> 0
    if (i < length) {
      // the rest is not ASCII: as UTF-8 bytes
      const bytes = Buffer.from(text.slice(i))
      this.literals(bytes)
      this.crc = crc32(bytes, this.crc)
      length = i + bytes.length
    }
    this.pos += length
    if (slot >= 0) {
      this.slotText[slot] = text
      this.slotPos[slot] = this.pos - length
      this.slotLength[slot] = length
    }
  }

  /** the CRC and position after a back-reference to text already written */
  private advance(text: string, length: number) {
    if (length !== text.length) this.crc = crc32(Buffer.from(text), this.crc)
    else {
      let c = ~this.crc
      for (let i = 0; i < length; i++) c = CRC_TABLE[(c ^ text.charCodeAt(i)) & 255]! ^ (c >>> 8)
      this.crc = ~c >>> 0
    }
    this.pos += length
  }

  /** Text that every feature repeats: a back-reference to its previous occurrence within the window. */
  constant(entry: ConstantPiece) {
    const length = entry.bytes.length
    if (length === 0) return
    if (!this.inBlock) this.open()
    const distance = this.pos - entry.lastPos
    if (entry.lastWriter === this.id && distance <= WINDOW && length >= 3) this.copy(length, distance)
    else this.literals(entry.bytes)
    entry.lastWriter = this.id
    entry.lastPos = this.pos
    const c = this.crc
    const t = entry.shiftTables
    this.crc = (t[c & 255]! ^ t[256 + ((c >>> 8) & 255)]! ^ t[512 + ((c >>> 16) & 255)]! ^ t[768 + (c >>> 24)]! ^ entry.crc) >>> 0
    this.pos += length
  }

  /** A precompressed segment, copied as it is. */
  segment(segment: GzipSegment) {
    if (segment.length === 0) return
    this.align()
    this.ensure(segment.bytes.length)
    this.at += segment.bytes.copy(this.out, this.at)
    this.crc = crc32Combine(this.crc, segment.crc, segment.shift)
    this.pos += segment.length
  }

  /** Longer per-request text (e.g. facility points): compressed by zlib now when large, else as a value. */
  text(text: string) {
    if (text.length < 2048) return this.value(text)
    this.segment(gzipSegment(text))
  }

  /** The finished gzip body (final empty block, CRC-32 and length). */
  finish(): Buffer {
    this.ensure(16)
    if (this.inBlock) this.bits(0, 7)
    this.bits(3, 3) // BFINAL 1, BTYPE 01
    this.bits(0, 7) // end of block
    if (this.bitCount > 0) this.bits(0, 8 - this.bitCount)
    this.inBlock = false
    this.out.writeUInt32LE(this.crc, this.at)
    this.out.writeUInt32LE(this.pos % 2 ** 32, this.at + 4)
    this.at += 8
    return this.out.subarray(0, this.at)
  }
}

/**
 * Whether an Accept-Encoding header accepts gzip (RFC 9110 §12.5.3): an explicit `gzip` or `x-gzip` wins by its
 * q-value (the highest when named more than once), and `*` counts only when neither is named; q=0 means "not".
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '')
  let named: number | null = null
  let star: number | null = null
  for (const part of value.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    const coding = name!.trim()
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const weight = q === undefined ? 1 : Number(q.slice(2)) || 0
    if (coding === '*') star = Math.max(star ?? 0, weight)
    else named = Math.max(named ?? 0, weight)
  }
  if (named !== null) return named > 0
  return star !== null && star > 0
}
