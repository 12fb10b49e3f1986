/**
 * Deterministic randomness. Every entity draws from its own generator derived from (seed, stream, index), so a
 * row never depends on the order or the chunking of generation: the same seed gives the same rows, in one
 * process or split across workers.
 */

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/** FNV-1a over one string part, then the part terminator. */
function mixString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, FNV_PRIME)
  }
  h ^= 0xff
  return Math.imul(h, FNV_PRIME)
}

const digits = new Uint8Array(24)
/**
 * FNV-1a over one number part, which hashes as the text `#${n}`: for a non-negative safe integer (every seed,
 * stream and index the generator uses) the decimal digits are taken arithmetically instead of through a string.
 */
function mixNumber(h: number, n: number): number {
  if (!(Number.isSafeInteger(n) && n >= 0)) return mixString(h, `#${n}`)
  h ^= 35 // '#'
  h = Math.imul(h, FNV_PRIME)
  let length = 0
  if (n <= 0x7fffffff) {
    // small integers: int32 arithmetic
    let k = n | 0
    do {
      const q = (k / 10) | 0
      digits[length++] = k - q * 10
      k = q
    } while (k > 0)
  } else
    do {
      digits[length++] = n % 10
      n = Math.floor(n / 10)
    } while (n > 0)
  while (length > 0) {
    h ^= 48 + (digits[--length] as number)
    h = Math.imul(h, FNV_PRIME)
  }
  h ^= 0xff
  return Math.imul(h, FNV_PRIME)
}

/** The murmur3 finaliser. */
function finish(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** 32-bit string/number hash (FNV-1a then a murmur3 finaliser); a number part hashes as `#${n}`. */
export function hash32(...parts: (string | number)[]): number {
  let h = FNV_OFFSET
  for (const part of parts) h = typeof part === 'number' ? mixNumber(h, part) : mixString(h, part)
  return finish(h)
}

/** sfc32: small, fast, passes PractRand to 2^40 bytes; seeded through splitmix-style mixing. */
export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number
  constructor(seed: number, stream = 0) {
    this.a = seed >>> 0
    this.b = (stream ^ 0x9e3779b9) >>> 0
    // hash32(seed, stream, 'c'), without the rest array
    this.c = finish(mixString(mixNumber(mixNumber(FNV_OFFSET, seed), stream), 'c'))
    this.d = 1
    for (let i = 0; i < 12; i++) this.nextUint32()
  }
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list')
    return items[Math.floor(this.next() * items.length)] as T
  }
  /** Standard normal (Box-Muller). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.next()
    const v = this.next()
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }
  /** Log-normal multiplier with median 1. */
  lognormal(sigma: number): number {
    return Math.exp(this.normal(0, sigma))
  }
  /** Poisson (Knuth for small means, normal approximation above 30). */
  poisson(mean: number): number {
    if (mean <= 0) return 0
    if (mean > 30) return Math.max(0, Math.round(this.normal(mean, Math.sqrt(mean))))
    const limit = Math.exp(-mean)
    let k = 0
    let p = this.next()
    while (p > limit) {
      k++
      p *= this.next()
    }
    return k
  }
}

/** Per stream name: the hash states after its constant leading parts, for the last seed used with it. */
interface StreamPrefix {
  name: string
  seed: number
  seedStream: number
  stream: number
}
const streamPrefixes = new Map<string, StreamPrefix>()
/** The last stream used (most calls come in runs of one stream). */
let lastPrefix: StreamPrefix = { name: '', seed: Number.NaN, seedStream: 0, stream: 0 }

/**
 * The generator of one entity: independent of every other entity's. Equal to
 * `new Rng(hash32(seed, stream, index), hash32(stream, index, seed))`; the hash states after (seed, stream) and
 * after (stream) are kept per stream, so an entity hashes only its index (and the seed once more).
 */
export function rngFor(seed: number, stream: string, index: number): Rng {
  let prefix = lastPrefix
  if (prefix.name !== stream || prefix.seed !== seed) {
    prefix = streamPrefixes.get(stream) ?? lastPrefix
    if (prefix.name !== stream || prefix.seed !== seed) {
      prefix = { name: stream, seed, seedStream: mixString(mixNumber(FNV_OFFSET, seed), stream), stream: mixString(FNV_OFFSET, stream) }
      streamPrefixes.set(stream, prefix)
    }
    lastPrefix = prefix
  }
  return new Rng(finish(mixNumber(prefix.seedStream, index)), finish(mixNumber(mixNumber(prefix.stream, index), seed)))
}

/** Weighted choice in O(log n) over a prepared cumulative table. */
export class WeightedTable<T> {
  readonly items: readonly T[]
  private readonly cumulative: Float64Array
  readonly total: number
  constructor(entries: readonly (readonly [T, number])[]) {
    const kept = entries.filter(([, w]) => w > 0)
    if (kept.length === 0) throw new Error('a weighted table needs a positive weight')
    this.items = kept.map(([item]) => item)
    this.cumulative = new Float64Array(kept.length)
    let sum = 0
    kept.forEach(([, w], i) => {
      sum += w
      this.cumulative[i] = sum
    })
    this.total = sum
  }
  pick(rng: Rng): T {
    return this.items[this.pickIndex(rng)] as T
  }
  /** The index in `items` of what pick would return (the same draw). */
  pickIndex(rng: Rng): number {
    const x = rng.next() * this.total
    let lo = 0
    let hi = this.cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.cumulative[mid] ?? 0) > x) hi = mid
      else lo = mid + 1
    }
    return lo
  }
  weightOf(index: number): number {
    return (this.cumulative[index] ?? 0) - (index > 0 ? (this.cumulative[index - 1] ?? 0) : 0)
  }
}
