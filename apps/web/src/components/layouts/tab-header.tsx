import { Badge, Tabs } from '@mantine/core'
import { useHotkeys } from '@mantine/hooks'
import type { ReactNode } from 'react'
import { useSearchParams } from 'react-router'
import { useSession } from '../../lib/session'
import { adjacentTab, resolveActiveTab, visibleTabs, type TabDef } from '../../lib/tabs'

export interface TabHeaderProps {
  tabs: readonly (TabDef & { icon?: ReactNode })[]
  /** URL search parameter holding the tab (default 'tab') */
  param?: string
  onChange?: (tab: string) => void
  /** enable Ctrl+Left / Ctrl+Right (default true) */
  keyboard?: boolean
}

/** URL-synced tabs with badges, disabled tabs and keyboard switching (spec 1 §2). */
export function useUrlTab(tabs: readonly TabDef[], param = 'tab') {
  const [searchParams, setSearchParams] = useSearchParams()
  const active = resolveActiveTab(tabs, searchParams.get(param))
  const select = (id: string | null) => {
    if (!id || id === active) return
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current)
        next.set(param, id)
        return next
      },
      { replace: true },
    )
  }
  return [active, select] as const
}

export function TabHeader({ tabs, param = 'tab', onChange, keyboard = true }: TabHeaderProps) {
  const { role } = useSession()
  const shown = visibleTabs(tabs, role)
  const [active, select] = useUrlTab(shown, param)
  const change = (id: string | null) => {
    if (!id || id === active) return
    select(id)
    onChange?.(id)
  }
  useHotkeys(
    keyboard
      ? [
          ['ctrl+ArrowLeft', () => change(adjacentTab(shown, active, -1))],
          ['ctrl+ArrowRight', () => change(adjacentTab(shown, active, 1))],
        ]
      : [],
  )
  return (
    <Tabs value={active} onChange={change}>
      <Tabs.List>
        {shown.map((tab) => (
          <Tabs.Tab
            key={tab.id}
            value={tab.id}
            disabled={tab.disabled}
            leftSection={tab.icon}
            rightSection={
              tab.badge !== undefined ? (
                <Badge size="xs" variant="light" circle={typeof tab.badge === 'number' && tab.badge < 10}>
                  {tab.badge}
                </Badge>
              ) : undefined
            }
          >
            {tab.label}
          </Tabs.Tab>
        ))}
      </Tabs.List>
    </Tabs>
  )
}
