import { AppShell } from '@mantine/core'
import { useDisclosure, useLocalStorage, useMediaQuery } from '@mantine/hooks'
import type { ReactNode } from 'react'
import { Outlet } from 'react-router'
import { HEADER_HEIGHT, SIDEBAR_COLLAPSED_STORAGE_KEY, SIDEBAR_WIDTH_COLLAPSED, SIDEBAR_WIDTH_OPEN } from '../../lib/navigation'
import { Sidebar } from './sidebar'
import { TopHeader } from './top-header'

/** Phones (below Mantine's sm, where the sidebar becomes a drawer). */
export const PHONE_QUERY = '(max-width: 47.99em)'

/**
 * Room kept free at the bottom of the page for the floating Feedback button (its 44 px plus its offset and a
 * gap): the end of every page scrolls clear of it, and sticky bars (the AI Hub's composer) sit above it. On a
 * phone the button sits in the top bar instead, where it covers nothing (sticky composers, the selection
 * bar, Price Check's search button and card actions all live at the bottom).
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
  const phone = useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false })
  const floatingAtBottom = floating && !phone
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
      style={{ '--citrus-floating-clearance': floatingAtBottom ? FLOATING_CLEARANCE : '0px' }}
    >
      <AppShell.Header>
        <TopHeader
          collapsed={collapsed}
          onToggleCollapsed={() => setCollapsed((value) => !value)}
          mobileOpened={mobileOpened}
          onToggleMobile={mobile.toggle}
          actions={phone ? floating : null}
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
      {floatingAtBottom && floating}
    </AppShell>
  )
}
