import type { AiPinType, AtlasInsight } from '@citrus/contracts'
import { Box } from '@mantine/core'
import { createContext, useContext, type ComponentType } from 'react'
import { toHubPin, type HubPin } from '../../../lib/hub-pin'

/** What Atlas pins to the AI Hub from a drill-down or detail card. */
export type AtlasHubPin = HubPin

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

/** A card's insight as an AI Hub pin. */
export function toAtlasHubPin(insight: AtlasInsight): AtlasHubPin {
  return toHubPin(
    insight,
    PIN_TYPE[insight.entity_type],
    insight.metrics.map((group) => group.metrics),
  )
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
