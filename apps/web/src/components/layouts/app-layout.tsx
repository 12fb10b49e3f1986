import { AppShell } from '@mantine/core'
import { useDisclosure, useLocalStorage } from '@mantine/hooks'
import type { ReactNode } from 'react'
import { Outlet } from 'react-router'
import { HEADER_HEIGHT, SIDEBAR_COLLAPSED_STORAGE_KEY, SIDEBAR_WIDTH_COLLAPSED, SIDEBAR_WIDTH_OPEN } from '../../lib/navigation'
import { Sidebar } from './sidebar'
import { TopHeader } from './top-header'

/**
 * Room kept free at the bottom of the page for the floating Feedback button (its 44 px plus its offset and a
 * gap): the end of every page scrolls clear of it, and sticky bars (the AI Hub's composer) sit above it.
 */
export const FLOATING_CLEARANCE = '80px'

/** The signed-in shell: collapsible sidebar (state kept in localStorage) and the top header. */
export function AppLayout({ children, floating }: { children?: ReactNode; floating?: ReactNode }) {
  const [collapsed, setCollapsed] = useLocalStorage<boolean>({
    key: SIDEBAR_COLLAPSED_STORAGE_KEY,
    defaultValue: false,
    getInitialValueInEffect: false,
  })
  const [mobileOpened, mobile] = useDisclosure(false)
  return (
    <AppShell
      header={{ height: HEADER_HEIGHT }}
      navbar={{
        width: collapsed ? SIDEBAR_WIDTH_COLLAPSED : SIDEBAR_WIDTH_OPEN,
        breakpoint: 'sm',
        collapsed: { mobile: !mobileOpened },
      }}
      padding="md"
      transitionDuration={200}
      style={{ '--citrus-floating-clearance': floating ? FLOATING_CLEARANCE : '0px' }}
    >
      <AppShell.Header>
        <TopHeader
          collapsed={collapsed}
          onToggleCollapsed={() => setCollapsed((value) => !value)}
          mobileOpened={mobileOpened}
          onToggleMobile={mobile.toggle}
        />
      </AppShell.Header>
      <AppShell.Navbar>
        <Sidebar collapsed={collapsed && !mobileOpened} onNavigate={mobile.close} />
      </AppShell.Navbar>
      <AppShell.Main
        bg="var(--mantine-color-gray-0)"
        style={{ paddingBottom: 'calc(var(--app-shell-padding) + var(--citrus-floating-clearance))' }}
      >
        {children ?? <Outlet />}
      </AppShell.Main>
      {floating}
    </AppShell>
  )
}
