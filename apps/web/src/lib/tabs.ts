import type { SessionRole } from '@citrus/contracts'

export interface TabDef {
  id: string
  label: string
  badge?: string | number
  disabled?: boolean
  hidden?: boolean
  /** roles that may see the tab; a tab with no required permissions is shown to everyone (spec 1 §6) */
  roles?: readonly SessionRole[]
}

export function visibleTabs<T extends TabDef>(tabs: readonly T[], role: SessionRole): T[] {
  return tabs.filter((tab) => !tab.hidden && (!tab.roles || tab.roles.length === 0 || tab.roles.includes(role)))
}

/** Selection falls back to the first visible, enabled tab (spec 1 §4). */
export function resolveActiveTab(tabs: readonly TabDef[], requested: string | null | undefined): string | null {
  const chosen = tabs.find((tab) => tab.id === requested && !tab.disabled)
  if (chosen) return chosen.id
  return tabs.find((tab) => !tab.disabled)?.id ?? null
}

/** Ctrl+Left / Ctrl+Right: the previous / next enabled tab, wrapping around. */
export function adjacentTab(tabs: readonly TabDef[], current: string | null, direction: 1 | -1): string | null {
  const enabled = tabs.filter((tab) => !tab.disabled)
  if (enabled.length === 0) return null
  const index = enabled.findIndex((tab) => tab.id === current)
  if (index === -1) return enabled[0]?.id ?? null
  return enabled[(index + direction + enabled.length) % enabled.length]?.id ?? null
}
