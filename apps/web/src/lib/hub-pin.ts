import { formatRatioPercent, type AiPinType } from '@citrus/contracts'

/** What an app pins to the AI Hub from a card or panel (spec 2 §3 Pinned insight): type, entity key, snapshot. */
export interface HubPin {
  type: AiPinType
  /** the entity's id in its app: a state code, a health-system id, a facility or provider id or NPI */
  entityKey: string
  displayName: string
  entity: { name: string; full_name: string | null }
  /** metric name → value as the card shows it */
  metrics: Record<string, number | string | null>
}

/** The AI Hub accepts at most 60 metrics per pin. */
const MAX_PIN_METRICS = 60

interface ShownMetric {
  code: string
  name?: string | null
  /** Atlas: PERCENT marks a ratio shown as a percentage */
  unit?: string
  /** Nova: PERCENTAGE marks a ratio shown as a percentage (it decides over the unit) */
  value_format?: string
  value: { v: number | string | null }
}

/** A metric's value as the panels show it: a ratio shown as a percentage is ×100 to one decimal (spec 2 §9). */
function shownValue(metric: ShownMetric): number | string | null {
  const percent = metric.value_format !== undefined ? metric.value_format === 'PERCENTAGE' : metric.unit === 'PERCENT'
  return percent && typeof metric.value.v === 'number' ? formatRatioPercent(metric.value.v) : metric.value.v
}

/** An insight as an AI Hub pin: metrics by their shown name (the code when two share a name), at most 60. */
export function toHubPin(
  insight: { citrus_id: string; display_name: string; entity: { name: string; full_name?: string | null } },
  type: AiPinType,
  metricLists: Iterable<readonly ShownMetric[] | undefined>,
): HubPin {
  const metrics: HubPin['metrics'] = {}
  for (const list of metricLists) {
    for (const metric of list ?? []) {
      if (Object.keys(metrics).length >= MAX_PIN_METRICS) break
      const name = metric.name && !(metric.name in metrics) ? metric.name : metric.code
      metrics[name.slice(0, 120)] = shownValue(metric)
    }
  }
  return {
    type,
    entityKey: insight.citrus_id,
    displayName: insight.display_name,
    entity: { name: insight.entity.name, full_name: insight.entity.full_name ?? null },
    metrics,
  }
}
