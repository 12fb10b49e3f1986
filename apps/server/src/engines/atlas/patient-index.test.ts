import { describe, expect, it } from 'vitest'
import { countRuns, popcount, type PatientIndex } from './patient-index.js'

/**
 * countRuns on a hand-made index: 200 patients in runs of three counties (one run outside any county), a selection of four in five, and payers given per patient. The counts are compared with a plain loop over the patients, with and
 * without the shortcut that derives the last payer count when every patient has a payer.
 */
function fixture(payerOf: (p: number) => number) {
  const size = 200
  const words = Math.ceil(size / 32)
  const bitset = (test: (p: number) => boolean) => {
    const bits = new Uint32Array(words)
    for (let p = 0; p < size; p++) if (test(p)) bits[p >>> 5]! |= 1 << (p & 31)
    return bits
  }
  // runs: [0, 37) county 0, [37, 90) county 2, [90, 101) none, [101, 160) county 1, [160, 200) county 0
  const start = Int32Array.from([0, 37, 90, 101, 160, 200])
  const region = Uint32Array.from([0, 2, 0xffffffff, 1, 0])
  const countyOf = (p: number) => {
    let r = 0
    while (start[r + 1]! <= p) r++
    return region[r]!
  }
  const payers = Array.from({ length: 4 }, (_, k) => bitset((p) => payerOf(p) === k))
  const index = {
    size,
    words,
    counties: ['A', 'B', 'C'],
    states: [],
    zips: [],
    runs: { COUNTY: { start, region } },
    payerBits: payers,
    payersPartition: Array.from({ length: size }, (_, p) => payerOf(p)).every((k) => k < 4),
  } as unknown as PatientIndex
  const selected = bitset((p) => (p * 37) % 5 !== 0)
  const expected = new Uint32Array(3 * 5)
  for (let p = 0; p < size; p++) {
    const g = countyOf(p)
    if (g === 0xffffffff || !(selected[p >>> 5]! & (1 << (p & 31)))) continue
    expected[g * 5]!++
    const k = payerOf(p)
    if (k < 4) expected[g * 5 + 1 + k]!++
  }
  return { index, selected, expected }
}

describe('countRuns', () => {
  it('counts patients and payers per region when every patient has a payer (last payer derived)', () => {
    const { index, selected, expected } = fixture((p) => p % 4)
    expect(index.payersPartition).toBe(true)
    expect([...countRuns(index, selected, 'COUNTY')]).toEqual([...expected])
  })

  it('counts every payer when some patients have none', () => {
    const { index, selected, expected } = fixture((p) => (p % 7 === 0 ? 255 : p % 4))
    expect(index.payersPartition).toBe(false)
    const counts = countRuns(index, selected, 'COUNTY')
    expect([...counts]).toEqual([...expected])
    // the patients without a payer are in no payer's count
    expect(counts[0]!).toBeGreaterThan(counts[1]! + counts[2]! + counts[3]! + counts[4]!)
  })
})

describe('popcount', () => {
  it('counts the set bits of any 32-bit word, signed or not, as a bit-by-bit count does', () => {
    const naive = (v: number) => {
      let n = 0
      for (let b = 0; b < 32; b++) n += (v >>> b) & 1
      return n
    }
    let state = 7
    const words = [0, 1, -1, 0xffffffff, 0x80000000, 0x7fffffff, 0xffff, 0xffff0000, 0x55555555 & -0x55555556]
    for (let i = 0; i < 10_000; i++) words.push((state = (Math.imul(state, 1103515245) + 12345) | 0))
    for (const word of words) expect(popcount(word)).toBe(naive(word))
  })
})
