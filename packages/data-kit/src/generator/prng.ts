/**
 * Deterministic randomness. Every entity draws from its own generator derived from (seed, stream, index), so a
 * row never depends on the order or the chunking of generation: the same seed gives the same rows, in one
 * process or split across workers.
 */

/** 32-bit string/number hash (FNV-1a then a murmur3 finaliser). */
export function hash32(...parts: (string | number)[]): number {
  let h = 0x811c9dc5
  for (const part of parts) {
    const s = typeof part === 'number' ? `#${part}` : part
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i)
      h = Math.imul(h, 0x01000193)
    }
    h ^= 0xff
    h = Math.imul(h, 0x01000193)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
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
    this.c = hash32(seed, stream, 'c')
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

/** The generator of one entity: independent of every other entity's. */
export function rngFor(seed: number, stream: string, index: number): Rng {
  return new Rng(hash32(seed, stream, index), hash32(stream, index, seed))
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
    const x = rng.next() * this.total
    let lo = 0
    let hi = this.cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.cumulative[mid] ?? 0) > x) hi = mid
      else lo = mid + 1
    }
    return this.items[lo] as T
  }
  weightOf(index: number): number {
    return (this.cumulative[index] ?? 0) - (index > 0 ? (this.cumulative[index - 1] ?? 0) : 0)
  }
}
