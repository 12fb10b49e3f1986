import { describe, expect, it } from 'vitest'
import { buildLegend, getisOrdGiStar, normalCdf, scoreOfHotspot } from './statistics.ts'

/**
 * The reference: Gi* written out term by term from Ord & Getis (1995), eq. 14, with a weights matrix
 * (w_ii = 1), independently of the implementation's set arithmetic.
 */
function referenceGiStar(x: number[], w: number[][]): number[] {
  const n = x.length
  const mean = x.reduce((a, b) => a + b, 0) / n
  const s = Math.sqrt(x.reduce((a, b) => a + b * b, 0) / n - mean * mean)
  return x.map((_, i) => {
    const row = w[i]!
    const wx = row.reduce((acc, wij, j) => acc + wij * x[j]!, 0)
    const sw = row.reduce((a, b) => a + b, 0)
    const sw2 = row.reduce((a, b) => a + b * b, 0)
    return (wx - mean * sw) / (s * Math.sqrt((n * sw2 - sw * sw) / (n - 1)))
  })
}

describe('Getis-Ord Gi*', () => {
  // A 3 x 3 grid of regions (rook contiguity) with a cluster of high values in the top-left corner.
  //   0 1 2
  //   3 4 5
  //   6 7 8
  const values = [90, 80, 10, 85, 40, 5, 12, 8, 3]
  const neighbours = [
    [1, 3],
    [0, 2, 4],
    [1, 5],
    [0, 4, 6],
    [1, 3, 5, 7],
    [2, 4, 8],
    [3, 7],
    [4, 6, 8],
    [5, 7],
  ]
  const weights = values.map((_, i) => values.map((__, j) => (i === j || neighbours[i]!.includes(j) ? 1 : 0)))

  it('agrees with the term-by-term reference on a small fixture', () => {
    const got = getisOrdGiStar(values, neighbours)
    const expected = referenceGiStar(values, weights)
    got.forEach((z, i) => expect(z).toBeCloseTo(expected[i]!, 10))
  })

  it('matches hand-computed values: the corner cluster is a hot spot, the opposite corner cold', () => {
    // n = 9, mean = 37, S = sqrt(Σx²/9 − 37²) = sqrt(23667/9 − 1369) = 36.6166...
    // region 0: Σ = 90 + 80 + 85 = 255, W = 3 → (255 − 111) / (35.5059 · sqrt((27 − 9) / 8)) = 2.7038...
    const got = getisOrdGiStar(values, neighbours)
    const s = Math.sqrt(23667 / 9 - 37 * 37)
    expect(got[0]).toBeCloseTo((255 - 111) / (s * Math.sqrt(18 / 8)), 10)
    expect(got[0]!).toBeGreaterThan(1.96)
    expect(got[8]!).toBeLessThan(0)
  })

  it('is undefined without variation or with fewer than three regions', () => {
    expect(getisOrdGiStar([5, 5, 5], [[1], [0, 2], [1]])).toEqual([null, null, null])
    expect(getisOrdGiStar([1, 2], [[1], [0]])).toEqual([null, null])
  })

  it('scores z-scores as normal percentiles', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 6)
    expect(normalCdf(1.96)).toBeCloseTo(0.975, 3)
    expect(scoreOfHotspot(0)).toBe(50)
    expect(scoreOfHotspot(null)).toBeNull()
  })
})

describe('choropleth legend', () => {
  it('spans the data with contiguous whole-number classes', () => {
    const legend = buildLegend([0, 3, 17, 250, 1000], 'Patients')
    expect(legend.min_value).toBe(0)
    expect(legend.max_value).toBe(1000)
    expect(legend.items).toHaveLength(5)
    expect(legend.items[0]!.min_value).toBe(0)
    expect(legend.items.at(-1)!.max_value).toBe(1000)
    for (let k = 1; k < legend.items.length; k += 1) expect(legend.items[k]!.min_value).toBe(legend.items[k - 1]!.max_value + 1)
    expect(legend.classOf(0)).toBe(0)
    expect(legend.classOf(1000)).toBe(4)
    expect(legend.items[0]!.label).toBe('0 - 200')
  })

  it('has as many classes as distinct whole numbers when the range is small, one for a constant', () => {
    const small = buildLegend([0, 1, 2], 'Patients')
    expect(small.items.map((i) => [i.min_value, i.max_value])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ])
    expect(buildLegend([7, 7], 'Patients').items).toHaveLength(1)
    expect(buildLegend([], 'Patients').items).toEqual([expect.objectContaining({ min_value: 0, max_value: 0 })])
  })
})
