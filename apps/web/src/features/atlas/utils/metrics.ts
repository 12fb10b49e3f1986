import type { AtlasInsight } from '@citrus/contracts'

/** A metric's value of an insight, by code. */
export function metricValue(insight: AtlasInsight, code: string): number | null {
  for (const group of insight.metrics) {
    const found = group.metrics.find((m) => m.code === code)
    if (found) return typeof found.value.v === 'number' ? found.value.v : null
  }
  return null
}

/**
 * The key metrics of a drill-down card: at most 4 (3 for country and state cards), never the
 * opportunity score (spec 2 §2).
 */
export function keyMetrics(insight: AtlasInsight) {
  const limit = insight.entity_type === 'CountryInsight' || insight.entity_type === 'COUNTRY' || insight.entity_type === 'STATE' ? 3 : 4
  return insight.metrics
    .flatMap((g) => g.metrics)
    .filter((m) => m.code !== 'opportunity_score')
    .slice(0, limit)
}

export interface PayerShare {
  key: 'commercial' | 'medicare' | 'medicaid' | 'other'
  label: string
  share: number
}

/** Payer shares rounded to 1 decimal, sorted by descending share (spec 2 §2); null when there is no patient. */
export function payerMix(insight: AtlasInsight): PayerShare[] | null {
  const patients = metricValue(insight, 'patient_count') ?? 0
  if (patients === 0) return null
  const labels = { commercial: 'Commercial', medicare: 'Medicare', medicaid: 'Medicaid', other: 'Other' } as const
  const shares = (Object.keys(labels) as PayerShare['key'][]).map((key) => ({
    key,
    label: labels[key],
    share: Math.round(((metricValue(insight, `${key}_patients`) ?? 0) / patients) * 1000) / 10,
  }))
  const total = shares.reduce((a, s) => a + s.share, 0)
  if (total < 95 || total > 105) console.warn(`Insurance percentages sum to ${total}`)
  return shares.sort((a, b) => b.share - a.share)
}

/** Pie slices with a 5 % minimum display share (spec 2 §9), renormalised to 100. */
export function pieSlices(shares: readonly PayerShare[]): (PayerShare & { display: number })[] {
  const raised = shares.map((s) => ({ ...s, display: s.share > 0 ? Math.max(5, s.share) : 0 }))
  const sum = raised.reduce((a, s) => a + s.display, 0)
  return raised.map((s) => ({ ...s, display: sum > 0 ? (s.display / sum) * 100 : 0 }))
}

/** The Key Insights sentence describing the payer distribution. */
export function payerSentence(shares: readonly PayerShare[]): string {
  const [top, second] = shares
  if (!top) return ''
  return `${top.label} covers the largest share of patients (${top.share.toFixed(1)}%)${second ? `, followed by ${second.label} (${second.share.toFixed(1)}%)` : ''}.`
}

/** SVG paths of the slices on a 100 x 100 view box (radius 45, centre 50,50), clockwise from 12 o'clock. */
export function pieGeometry<T extends { display: number }>(slices: readonly T[]): (T & { d: string })[] {
  const ends = slices.reduce<number[]>((acc, s) => [...acc, (acc.at(-1) ?? 0) + (s.display / 100) * Math.PI * 2], [])
  return slices.map((slice, i) => {
    const start = i === 0 ? 0 : ends[i - 1]!
    const end = ends[i]!
    const large = end - start > Math.PI ? 1 : 0
    const [x1, y1, x2, y2] = [Math.sin(start), -Math.cos(start), Math.sin(end), -Math.cos(end)].map((v) => 50 + 45 * v)
    return { ...slice, d: `M50,50 L${x1},${y1} A45,45 0 ${large} 1 ${x2},${y2} Z` }
  })
}
