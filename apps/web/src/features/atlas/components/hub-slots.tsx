import type { AiPinType, AtlasInsight } from '@citrus/contracts'
import { Box } from '@mantine/core'
import { createContext, useContext, type ComponentType } from 'react'

/** What Atlas pins to the AI Hub from a drill-down or detail card (spec 2 §3 Pinned insight). */
export interface AtlasHubPin {
  type: AiPinType
  /** the entity's id in Atlas: a state code, a facility or provider id */
  entityKey: string
  displayName: string
  entity: { name: string; full_name: string | null }
  /** metric name → value as the card shows it */
  metrics: Record<string, number | string | null>
}

/**
 * The AI Hub's parts inside Atlas. A feature does not import another feature (STYLE.md): the app composes them
 * (app/routes/atlas-generic-results-page.tsx). Without them (an Atlas screen rendered on its own) the slots stay empty.
 */
export interface AtlasHubSlots {
  /** the 'Save to Hub' toggle of a card */
  SaveButton: ComponentType<{ pin: AtlasHubPin }>
  /** the ai-hub tab of the generic results: the whole AI Hub, generating against the ATLAS product */
  AiHub: ComponentType
}

const AtlasHubContext = createContext<AtlasHubSlots | null>(null)
export const AtlasHubProvider = AtlasHubContext.Provider

export function useAtlasHub(): AtlasHubSlots | null {
  return useContext(AtlasHubContext)
}

const PIN_TYPE: Record<AtlasInsight['entity_type'], AiPinType> = {
  PROVIDER: 'provider',
  HEALTH_SYSTEM: 'health-system',
  STATE: 'state',
  FACILITY: 'facility',
  COUNTRY: 'other',
  CountryInsight: 'other',
}

/** The AI Hub accepts at most 60 metrics per pin. */
const MAX_PIN_METRICS = 60

/** A card's insight as an AI Hub pin: metrics by their shown name (the code when two share a name). */
export function toAtlasHubPin(insight: AtlasInsight): AtlasHubPin {
  const metrics: AtlasHubPin['metrics'] = {}
  for (const group of insight.metrics) {
    for (const metric of group.metrics) {
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

/** 'Save to Hub' on a card (spec 2 §2, §4 Pinning), when the app provides the AI Hub; its click stays on the button. */
export function SaveToHubSlot({ insight }: { insight: AtlasInsight }) {
  const hub = useAtlasHub()
  if (!hub) return null
  return (
    <Box onClick={(event) => event.stopPropagation()}>
      <hub.SaveButton pin={toAtlasHubPin(insight)} />
    </Box>
  )
}

/** The ai-hub tab's content, when the app provides the AI Hub. */
export function AiHubSlot() {
  const hub = useAtlasHub()
  return hub ? <hub.AiHub /> : null
}
