import { ActionIcon, Anchor, Box, Breadcrumbs, Burger, Group, Text, Tooltip } from '@mantine/core'
import { IconLayoutSidebarLeftCollapse, IconLayoutSidebarLeftExpand } from '@tabler/icons-react'
import type { ReactNode } from 'react'
import { Link, useLocation } from 'react-router'
import { breadcrumbsFor, HEADER_HEIGHT } from '../../lib/navigation'
import { Logo } from '../brand/logo'
import { useViewer } from './use-viewer'

export interface TopHeaderProps {
  collapsed: boolean
  onToggleCollapsed: () => void
  mobileOpened: boolean
  onToggleMobile: () => void
  showBreadcrumbs?: boolean
  /** at the right end of the bar (the Feedback button on phones) */
  actions?: ReactNode
}

/** Top header (spec 1 §2): 72 px, sidebar toggle, optional breadcrumbs; on small screens the top bar. */
export function TopHeader({ collapsed, onToggleCollapsed, mobileOpened, onToggleMobile, showBreadcrumbs = true, actions }: TopHeaderProps) {
  const { pathname } = useLocation()
  const viewer = useViewer()
  const crumbs = showBreadcrumbs ? breadcrumbsFor(pathname, viewer) : []
  return (
    <Group h={HEADER_HEIGHT} px="md" gap="md" wrap="nowrap">
      <Burger opened={mobileOpened} onClick={onToggleMobile} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
      <Group hiddenFrom="sm">
        <Logo />
      </Group>
      <Tooltip label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}>
        <ActionIcon
          variant="subtle"
          color="gray"
          size="lg"
          onClick={onToggleCollapsed}
          visibleFrom="sm"
          aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
        >
          {collapsed ? <IconLayoutSidebarLeftExpand size={22} /> : <IconLayoutSidebarLeftCollapse size={22} />}
        </ActionIcon>
      </Tooltip>
      {crumbs.length > 0 && (
        <Box component="nav" aria-label="Breadcrumb" visibleFrom="sm">
          <Breadcrumbs>
            {crumbs.map((crumb, index) =>
              crumb.to && index < crumbs.length - 1 ? (
                <Anchor key={crumb.label} component={Link} to={crumb.to} size="sm">
                  {crumb.label}
                </Anchor>
              ) : (
                <Text
                  key={crumb.label}
                  size="sm"
                  c={index === crumbs.length - 1 ? undefined : 'dimmed'}
                  fw={index === crumbs.length - 1 ? 600 : undefined}
                >
                  {crumb.label}
                </Text>
              ),
            )}
          </Breadcrumbs>
        </Box>
      )}
      {actions && <Box ml="auto">{actions}</Box>}
    </Group>
  )
}
