import type { AtlasChoroplethLegend } from '@citrus/contracts'

/**
 * Getis-Ord Gi* (Getis & Ord 1992; Ord & Getis 1995) with binary weights that include the region itself:
 *
 *   Gi* = (Σj wij xj − X̄ Σj wij) / (S √((n Σj wij² − (Σj wij)²) / (n − 1)))
 *
 * with X̄ the mean and S the (population) standard deviation of x over all n regions. The result is a
 * z-score: above 1.96 a hot spot, below −1.96 a cold spot at the 5 % level. Null when it is undefined
 * (fewer than 3 regions, no variation, or a region whose neighbourhood is every region).
 * docs/decisions/0032-atlas-hotspots.md
 */
export function getisOrdGiStar(values: readonly number[], neighbours: readonly (readonly number[])[]): (number | null)[] {
  return giStar(values, neighbourhoods(neighbours))
}

/**
 * Each region's neighbourhood for Gi*: the region itself, then its neighbours in their order, each once (what
 * iterating `new Set([i, ...neighbours[i]])` visits), as one list with offsets. It depends only on the regions,
 * not on their values, so a caller may keep it per region catalog and scope (docs/decisions/0061).
 */
export interface Neighbourhoods {
  start: Int32Array
  members: Int32Array
}

export function neighbourhoods(neighbours: readonly (readonly number[])[]): Neighbourhoods {
  const n = neighbours.length
  const start = new Int32Array(n + 1)
  const members: number[] = []
  const seen = new Int32Array(n).fill(-1)
  for (let i = 0; i < n; i++) {
    start[i] = members.length
    members.push(i)
    seen[i] = i
    for (const j of neighbours[i] ?? []) {
      if (j >= 0 && j < n) {
        if (seen[j] === i) continue
        seen[j] = i
      } else if (members.lastIndexOf(j, members.length - 1) >= start[i]!) continue
      members.push(j)
    }
  }
  start[n] = members.length
  return { start, members: Int32Array.from(members) }
}

/** Gi* of each region (see getisOrdGiStar) over precomputed neighbourhoods: the same arithmetic in the same order. */
export function giStar(values: readonly number[], hoods: Neighbourhoods): (number | null)[] {
  const n = values.length
  if (n < 3) return values.map(() => null)
  let sum = 0
  let sumSquares = 0
  for (const x of values) {
    sum += x
    sumSquares += x * x
  }
  const mean = sum / n
  const variance = sumSquares / n - mean * mean
  const s = variance > 0 ? Math.sqrt(variance) : 0
  if (s === 0) return values.map(() => null)
  const { start, members } = hoods
  const out: (number | null)[] = new Array<number | null>(n)
  for (let i = 0; i < n; i++) {
    let local = 0
    for (let k = start[i]!, end = start[i + 1]!; k < end; k++) local += values[members[k]!] ?? 0
    const weight = start[i + 1]! - start[i]! // Σ wij = Σ wij² for binary weights
    const denominator = s * Math.sqrt((n * weight - weight * weight) / (n - 1))
    out[i] = denominator > 0 ? (local - mean * weight) / denominator : null
  }
  return out
}

/** The standard normal distribution function (Abramowitz & Stegun 7.1.26 on erf; |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2
  const t = 1 / (1 + 0.3275911 * x)
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x)
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2
}

/** The 0-100 score of a region: the normal percentile of its Gi* z-score (50 = no clustering). */
export function scoreOfHotspot(z: number | null): number | null {
  return z === null ? null : Math.round(normalCdf(z) * 1000) / 10
}

export const LEGEND_COLORS = ['#FFF3E0', '#FDC98A', '#FD9A4B', '#E8590C', '#9A2F06'] as const
export const LEGEND_OPACITY = 0.75
export const LEGEND_CLASSES = LEGEND_COLORS.length

/**
 * A gradient legend of equal intervals between the smallest and the largest value of the data (whole
 * numbers for counts). One class when every value is the same; the 0-0 class for no data at all.
 */
export function buildLegend(values: readonly number[], title: string): AtlasChoroplethLegend & { classOf(value: number): number } {
  const min = values.length > 0 ? Math.min(...values) : 0
  const max = values.length > 0 ? Math.max(...values) : 0
  const classes = max > min ? Math.min(LEGEND_CLASSES, Math.floor(max - min) + 1) : 1
  const step = (max - min) / classes
  const bounds = Array.from({ length: classes }, (_, k) => {
    const low = k === 0 ? min : Math.floor(min + k * step) + 1
    const high = k === classes - 1 ? max : Math.floor(min + (k + 1) * step)
    return { low, high }
  })
  const classOf = (value: number) => {
    for (let k = 0; k < bounds.length; k += 1) if (value <= bounds[k]!.high) return k
    return bounds.length - 1
  }
  const items = bounds.map(({ low, high }, k) => ({
    color: LEGEND_COLORS[Math.round((k * (LEGEND_CLASSES - 1)) / Math.max(1, classes - 1))]!,
    opacity: LEGEND_OPACITY,
    label: low === high ? low.toLocaleString('en-US') : `${low.toLocaleString('en-US')} - ${high.toLocaleString('en-US')}`,
    min_value: low,
    max_value: high,
  }))
  return {
    type: 'GRADIENT',
    metric_config: { title, value_format: 'INTEGER', value_suffix: '' },
    min_value: min,
    max_value: max,
    items,
    classOf,
  }
}
