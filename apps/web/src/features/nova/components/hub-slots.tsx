import type { AiPinType, NovaInsight } from '@citrus/contracts'
import { createContext, useContext, type ComponentType } from 'react'

/** What Nova pins to the AI Hub from a detail panel (spec 2 §3 Pinned insight): type, entity key, snapshot. */
export interface NovaHubPin {
  type: AiPinType
  /** the entity's id in Nova: a health-system id or an NPI */
  entityKey: string
  displayName: string
  entity: { name: string; full_name: string | null }
  /** metric name → value as the panel shows it */
  metrics: Record<string, number | string | null>
}

/**
 * The AI Hub's parts inside Nova. A feature does not import another feature (STYLE.md): the app composes them
 * (app/routes/nova-results-page.tsx). Without them (a Nova screen rendered on its own) the slots stay empty.
 */
export interface NovaHubSlots {
  /** the 'Save to AI Hub' toggle of a detail panel */
  SaveButton: ComponentType<{ pin: NovaHubPin }>
  /** the Strategy Hub tab: the whole AI Hub, generating against the NOVA product */
  StrategyHub: ComponentType
  /** the sidebar's pinned-insights tab */
  PinnedInsights: ComponentType
}

const NovaHubContext = createContext<NovaHubSlots | null>(null)
export const NovaHubProvider = NovaHubContext.Provider

export function useNovaHub(): NovaHubSlots | null {
  return useContext(NovaHubContext)
}

const PIN_TYPE: Record<NovaInsight['entity_type'], AiPinType> = {
  PROVIDER: 'provider',
  HEALTH_SYSTEM: 'health-system',
  STATE: 'state',
  FACILITY: 'facility',
  COUNTRY: 'other',
  TERRITORY: 'other',
}

/** The AI Hub accepts at most 60 metrics per pin. */
const MAX_PIN_METRICS = 60

/** A panel's insight as an AI Hub pin: metrics by their shown name (the code when two share a name). */
export function toHubPin(insight: NovaInsight): NovaHubPin {
  const metrics: NovaHubPin['metrics'] = {}
  for (const list of Object.values(insight.metrics)) {
    for (const metric of list ?? []) {
      if (Object.keys(metrics).length >= MAX_PIN_METRICS) break
      const name = metric.name && !(metric.name in metrics) ? metric.name : metric.code
      metrics[name.slice(0, 120)] = metric.value.v
    }
  }
  return {
    type: PIN_TYPE[insight.entity_type],
    entityKey: insight.citrus_id,
    displayName: insight.display_name,
    entity: { name: insight.entity.name, full_name: insight.entity.full_name ?? null },
    metrics,
  }
}

/** 'Save to AI Hub' on an insight panel (spec 2 §2, §4 Pinning), when the app provides the AI Hub. */
export function SaveToHubSlot({ insight }: { insight: NovaInsight }) {
  const hub = useNovaHub()
  if (!hub) return null
  return <hub.SaveButton pin={toHubPin(insight)} />
}
