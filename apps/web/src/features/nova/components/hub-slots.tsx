import type { AiPinType, NovaInsight } from '@citrus/contracts'
import { createContext, useContext, type ComponentType } from 'react'
import { toHubPin, type HubPin } from '../../../lib/hub-pin'

/** What Nova pins to the AI Hub from a detail panel. */
export type NovaHubPin = HubPin

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

/** A panel's insight as an AI Hub pin. */
export function toNovaHubPin(insight: NovaInsight): NovaHubPin {
  return toHubPin(insight, PIN_TYPE[insight.entity_type], Object.values(insight.metrics))
}

/** 'Save to AI Hub' on an insight panel (spec 2 §2, §4 Pinning), when the app provides the AI Hub. */
export function SaveToHubSlot({ insight }: { insight: NovaInsight }) {
  const hub = useNovaHub()
  if (!hub) return null
  return <hub.SaveButton pin={toNovaHubPin(insight)} />
}
