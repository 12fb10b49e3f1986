import { describe, expect, it } from 'vitest'
import { adjacentTab, resolveActiveTab, visibleTabs, type TabDef } from './tabs'

const TABS: TabDef[] = [
  { id: 'overview', label: 'Overview' },
  { id: 'insights', label: 'Insights', disabled: true },
  { id: 'hub', label: 'Hub', roles: ['citrus'] },
  { id: 'ai-hub', label: 'AI Hub', hidden: true },
  { id: 'nova', label: 'Nova', roles: [] },
]

describe('tab rules', () => {
  it('shows tabs without required permissions to everyone and hides hidden ones', () => {
    expect(visibleTabs(TABS, 'user').map((tab) => tab.id)).toEqual(['overview', 'insights', 'nova'])
    expect(visibleTabs(TABS, 'citrus').map((tab) => tab.id)).toEqual(['overview', 'insights', 'hub', 'nova'])
  })

  it('falls back to the first visible, enabled tab', () => {
    const shown = visibleTabs(TABS, 'user')
    expect(resolveActiveTab(shown, 'nova')).toBe('nova')
    expect(resolveActiveTab(shown, 'insights')).toBe('overview')
    expect(resolveActiveTab(shown, 'hub')).toBe('overview')
    expect(resolveActiveTab(shown, null)).toBe('overview')
    expect(
      resolveActiveTab(
        [
          { id: 'a', label: 'A', disabled: true },
          { id: 'b', label: 'B' },
        ],
        undefined,
      ),
    ).toBe('b')
    expect(resolveActiveTab([], 'x')).toBeNull()
  })

  it('moves to the previous / next enabled tab, wrapping around', () => {
    const shown = visibleTabs(TABS, 'citrus')
    expect(adjacentTab(shown, 'overview', 1)).toBe('hub')
    expect(adjacentTab(shown, 'hub', 1)).toBe('nova')
    expect(adjacentTab(shown, 'nova', 1)).toBe('overview')
    expect(adjacentTab(shown, 'overview', -1)).toBe('nova')
  })
})
