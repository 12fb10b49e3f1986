/** Radix orders of typed arrays for Care Select's percentile ranks (docs/decisions/0058). */

/** Scratch space of ascendingOrder (the process is single-threaded and the sort synchronous). */
let scratch = new Uint32Array(0)
const histogram = new Uint32Array(8 * 256)
const bump = (at: number) => {
  histogram[at] = (histogram[at] as number) + 1
}

/**
 * The positions of `values` in ascending numeric order (NaN-free): an LSD radix sort, 8 bits at a time, of the
 * values' IEEE 754 bits made order-preserving (a negative value's bits inverted, a positive value's sign bit set),
 * skipping the bytes that every value shares. About 10 times faster than TypedArray.prototype.sort here; only the
 * order is used, and ties are resolved by comparing the values themselves (so -0 and 0 tie, as with <).
 */
export function ascendingOrder(values: Float64Array): Uint32Array {
  const n = values.length
  if (scratch.length < 6 * n) scratch = new Uint32Array(6 * n)
  let hi = scratch.subarray(0, n)
  let lo = scratch.subarray(n, 2 * n)
  let at = scratch.subarray(2 * n, 3 * n)
  let hiNext = scratch.subarray(3 * n, 4 * n)
  let loNext = scratch.subarray(4 * n, 5 * n)
  let atNext = scratch.subarray(5 * n, 6 * n)
  const words = new Uint32Array(values.buffer, values.byteOffset, 2 * n)
  histogram.fill(0)
  for (let k = 0; k < n; k++) {
    let l = words[2 * k] as number
    let h = words[2 * k + 1] as number
    if (h >= 0x80000000) {
      h = ~h >>> 0
      l = ~l >>> 0
    } else h = (h | 0x80000000) >>> 0
    hi[k] = h
    lo[k] = l
    at[k] = k
    bump(l & 255)
    bump(256 + ((l >>> 8) & 255))
    bump(512 + ((l >>> 16) & 255))
    bump(768 + (l >>> 24))
    bump(1024 + (h & 255))
    bump(1280 + ((h >>> 8) & 255))
    bump(1536 + ((h >>> 16) & 255))
    bump(1792 + (h >>> 24))
  }
  for (let digit = 0; digit < 8; digit++) {
    const base = digit * 256
    const shift = (digit & 3) * 8
    const high = digit >= 4
    // a byte every value shares leaves the order as it is
    const first = (high ? (hi[0] as number) : (lo[0] as number)) >>> shift
    if (histogram[base + (first & 255)] === n) continue
    let sum = 0
    for (let b = 0; b < 256; b++) {
      const count = histogram[base + b] as number
      histogram[base + b] = sum
      sum += count
    }
    for (let k = 0; k < n; k++) {
      const h = hi[k] as number
      const l = lo[k] as number
      const b = base + (((high ? h : l) >>> shift) & 255)
      const to = histogram[b] as number
      histogram[b] = to + 1
      hiNext[to] = h
      loNext[to] = l
      atNext[to] = at[k] as number
    }
    ;[hi, hiNext] = [hiNext, hi]
    ;[lo, loNext] = [loNext, lo]
    ;[at, atNext] = [atNext, at]
  }
  return at.slice()
}

/** The positions of small non-negative integers in ascending order: an LSD radix sort, 8 bits at a time, skipping shared bytes. */
export function ascendingOrderU32(keys: Uint32Array): Uint32Array {
  const n = keys.length
  if (scratch.length < 6 * n) scratch = new Uint32Array(6 * n)
  let key = scratch.subarray(0, n)
  let at = scratch.subarray(n, 2 * n)
  let keyNext = scratch.subarray(2 * n, 3 * n)
  let atNext = scratch.subarray(3 * n, 4 * n)
  histogram.fill(0, 0, 1024)
  for (let k = 0; k < n; k++) {
    const v = keys[k] as number
    key[k] = v
    at[k] = k
    bump(v & 255)
    bump(256 + ((v >>> 8) & 255))
    bump(512 + ((v >>> 16) & 255))
    bump(768 + (v >>> 24))
  }
  for (let digit = 0; digit < 4; digit++) {
    const base = digit * 256
    const shift = digit * 8
    if (histogram[base + (((key[0] as number) >>> shift) & 255)] === n) continue
    let sum = 0
    for (let b = 0; b < 256; b++) {
      const count = histogram[base + b] as number
      histogram[base + b] = sum
      sum += count
    }
    for (let k = 0; k < n; k++) {
      const v = key[k] as number
      const b = base + ((v >>> shift) & 255)
      const to = histogram[b] as number
      histogram[b] = to + 1
      keyNext[to] = v
      atNext[to] = at[k] as number
    }
    ;[key, keyNext] = [keyNext, key]
    ;[at, atNext] = [atNext, at]
  }
  return at.slice()
}
