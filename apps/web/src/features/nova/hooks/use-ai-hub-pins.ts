import type { NovaInsight } from '@citrus/contracts'
import { useCallback, useSyncExternalStore } from 'react'
import { notify } from '../../../lib/notify'
import { NOVA_CLIENT_MESSAGES } from '../utils/messages'

/**
 * Pinned insights for the AI Hub (spec 2 §2, §3, §4 Pinning): a pin is { id, type, data { entity, display_name,
 * metrics }, pinnedAt, order }. Until the AI Hub's server-side pins land, the pins of this browser are kept
 * under PINS_STORAGE_KEY; the AI Hub reads the same key.
 */
export const PINS_STORAGE_KEY = 'citrus.aiHub.pinnedInsights'

export interface PinnedInsight {
  id: string
  type: 'provider' | 'health-system' | 'state' | 'facility' | 'other'
  data: { entity: { name: string; full_name: string | null }; display_name: string; metrics: Record<string, number | string | null> }
  pinnedAt: string
  order: number
}

const listeners = new Set<() => void>()
let cache: { raw: string | null; pins: PinnedInsight[] } = { raw: null, pins: [] }

function read(): PinnedInsight[] {
  const raw = typeof localStorage === 'undefined' ? null : localStorage.getItem(PINS_STORAGE_KEY)
  if (raw === cache.raw) return cache.pins
  let pins: PinnedInsight[]
  try {
    const parsed: unknown = raw ? JSON.parse(raw) : []
    pins = Array.isArray(parsed) ? (parsed as PinnedInsight[]) : []
  } catch {
    pins = []
  }
  cache = { raw, pins }
  return pins
}

function write(pins: PinnedInsight[]) {
  localStorage.setItem(PINS_STORAGE_KEY, JSON.stringify(pins))
  for (const listener of listeners) listener()
}

function subscribe(listener: () => void) {
  listeners.add(listener)
  const onStorage = (event: StorageEvent) => event.key === PINS_STORAGE_KEY && listener()
  window.addEventListener('storage', onStorage)
  return () => {
    listeners.delete(listener)
    window.removeEventListener('storage', onStorage)
  }
}

const TYPE_OF: Record<NovaInsight['entity_type'], PinnedInsight['type']> = {
  PROVIDER: 'provider',
  HEALTH_SYSTEM: 'health-system',
  STATE: 'state',
  FACILITY: 'facility',
  COUNTRY: 'other',
  TERRITORY: 'other',
}

/** The key of an insight's pin: type and entity (the pin id adds the time it was pinned). */
export const pinKey = (insight: Pick<NovaInsight, 'entity_type' | 'citrus_id'>) => `${TYPE_OF[insight.entity_type]}:${insight.citrus_id}`

export function usePinnedInsights() {
  const pins = useSyncExternalStore(subscribe, read, () => [])
  const isPinned = useCallback(
    (insight: Pick<NovaInsight, 'entity_type' | 'citrus_id'>) => pins.some((p) => p.id.startsWith(`${pinKey(insight)}:`)),
    [pins],
  )
  /** Not saved → saved (success toast); saved → not saved (info toast). */
  const toggle = useCallback((insight: NovaInsight) => {
    const current = read()
    const key = `${pinKey(insight)}:`
    const existing = current.find((p) => p.id.startsWith(key))
    if (existing) {
      write(current.filter((p) => p !== existing).map((p, order) => ({ ...p, order })))
      notify({ severity: 'info', message: NOVA_CLIENT_MESSAGES.removedFromHub(insight.display_name) })
      return
    }
    const metrics: Record<string, number | string | null> = {}
    for (const list of Object.values(insight.metrics)) for (const m of list ?? []) metrics[m.code] = m.value.v
    const pin: PinnedInsight = {
      id: `${key}${Date.now()}`,
      type: TYPE_OF[insight.entity_type],
      data: {
        entity: { name: insight.entity.name, full_name: insight.entity.full_name ?? null },
        display_name: insight.display_name,
        metrics,
      },
      pinnedAt: new Date().toISOString(),
      order: current.length,
    }
    write([...current, pin])
    notify({ severity: 'success', message: NOVA_CLIENT_MESSAGES.savedToHub(insight.display_name) })
  }, [])
  return { pins, isPinned, toggle }
}
