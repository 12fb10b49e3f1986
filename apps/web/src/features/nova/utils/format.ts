import {
  BADGE_PRIORITY,
  NOVA_METRIC_TABS,
  type Badge,
  type Metric,
  type MetricGroup,
  type NovaInsight,
  type PayerShare,
} from '@citrus/contracts'

/** Metric display (spec 2 §9): percentages as value × 100 with 1 decimal, DECIMAL with 2, scores with 1. */
export function formatMetricValue(metric: Pick<Metric, 'value' | 'value_format' | 'value_suffix'>): string {
  const v = metric.value.v
  if (v === null || v === undefined) return '—'
  if (typeof v === 'string') return v
  let text: string
  switch (metric.value_format) {
    case 'PERCENTAGE':
      text = `${(v * 100).toFixed(1)}%`
      break
    case 'DECIMAL':
      text = v.toFixed(2)
      break
    case 'SCORE':
      text = (Math.round(v * 10) / 10).toString()
      break
    default:
      text = Math.round(v).toLocaleString('en-US')
  }
  return metric.value_suffix ? `${text}${metric.value_suffix}` : text
}

/** A specialty label longer than 30 characters is cut to 27 plus an ellipsis (spec 2 §2). */
export function specialtyLabel(label: string): string {
  return label.length > 30 ? `${label.slice(0, 27)}...` : label
}

/** Payer colours fixed by payer type: Medicare, Medicaid, commercial or private, cash or self, other. */
export const PAYER_COLORS: Record<PayerShare['payer_type'], string> = {
  medicare: '#1c7ed6',
  medicaid: '#2f9e44',
  commercial: '#7048e8',
  cash: '#f08c00',
  other: '#868e96',
}

/** At most 3 badges in priority order, and the count of the others for a '+N' chip (spec 2 §9). */
export function visibleBadges(badges: readonly Badge[], max = 3): { shown: Badge[]; hidden: number } {
  const sorted = [...badges].sort((a, b) => BADGE_PRIORITY.indexOf(a.type) - BADGE_PRIORITY.indexOf(b.type))
  return { shown: sorted.slice(0, max), hidden: Math.max(0, sorted.length - max) }
}

export const BADGE_COLORS: Record<Badge['type'], string> = {
  RISK: 'red',
  WARNING: 'yellow',
  SUCCESS: 'green',
  INFO: 'blue',
  OPPORTUNITY: 'orange',
  TOP_PRESCRIBER: 'grape',
}

/** Metric tabs shown only for the categories that have data (spec 2 §2). */
export function metricTabsWithData(insight: Pick<NovaInsight, 'metrics'> | null | undefined): MetricGroup[] {
  if (!insight) return []
  return NOVA_METRIC_TABS.filter((group) => (insight.metrics[group] ?? []).some((m) => m.value.v !== null && m.value.v !== undefined))
}

export const METRIC_TAB_LABELS: Record<string, string> = {
  INCIDENCE: 'Incidence',
  COMPETITION: 'Competition',
  SALES: 'Sales',
  DRUG_USAGE: 'Drug Usage',
  NETWORK: 'Network',
}

/** A metric value of an insight by code. */
export function metricOf(insight: Pick<NovaInsight, 'metrics'>, code: string): Metric | undefined {
  for (const list of Object.values(insight.metrics)) {
    const found = list?.find((m) => m.code === code)
    if (found) return found
  }
  return undefined
}

/** The first entries of a top-prescriber list and the '+N more' count. */
export function topEntries<T>(list: readonly T[] | undefined, max: number): { shown: T[]; more: number } {
  const all = list ?? []
  return { shown: all.slice(0, max), more: Math.max(0, all.length - max) }
}
