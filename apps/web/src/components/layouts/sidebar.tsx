import { APP_VERSION } from '@citrus/contracts'
import {
  Avatar,
  Badge,
  Box,
  Divider,
  Group,
  HoverCard,
  Menu,
  NavLink,
  ScrollArea,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core'
import {
  IconApps,
  IconBuildingHospital,
  IconKey,
  IconLogin,
  IconLogout,
  IconMap,
  IconSettings,
  IconShieldLock,
  IconSparkles,
  IconStethoscope,
  IconUser,
  IconUserPlus,
  IconUsers,
} from '@tabler/icons-react'
import { useState, type ReactNode } from 'react'
import { Link, useLocation, useNavigate } from 'react-router'
import {
  HOVER_CLOSE_DELAY_MS,
  HOVER_OPEN_DELAY_MS,
  filterNavItems,
  homeActionLabel,
  isItemActive,
  submenusToExpand,
  type NavItem,
} from '../../lib/navigation'
import { useProducts } from '../../lib/products'
import { logout, useSession } from '../../lib/session'
import { Logo } from '../brand/logo'
import { NAV_ITEMS } from './nav-items'
import { useHomePath } from './use-viewer'

const ICONS: Record<string, ReactNode> = {
  Home: <IconApps size={20} />,
  Atlas: <IconMap size={20} />,
  'Care Connect': <IconStethoscope size={20} />,
  Nova: <IconSparkles size={20} />,
  'Team Settings': <IconUsers size={20} />,
  'Manage Team': <IconUsers size={18} />,
  'API Keys': <IconKey size={18} />,
  'Super Admin Settings': <IconShieldLock size={20} />,
  Companies: <IconBuildingHospital size={18} />,
  'User Settings': <IconSettings size={20} />,
  Profile: <IconUser size={18} />,
  Logout: <IconLogout size={18} />,
  Login: <IconLogin size={20} />,
  'Sign-Up': <IconUserPlus size={20} />,
}

function useSignOut() {
  const navigate = useNavigate()
  return () => {
    logout()
    navigate('/sign-in', { replace: true })
  }
}

function ItemBadge({ count }: { count?: number }) {
  if (!count) return null
  return (
    <Badge size="xs" circle>
      {count}
    </Badge>
  )
}

function LeafItem({
  item,
  pathname,
  collapsed,
  onNavigate,
}: {
  item: NavItem
  pathname: string
  collapsed: boolean
  onNavigate?: () => void
}) {
  const signOut = useSignOut()
  const common = {
    label: collapsed ? undefined : item.label,
    leftSection: ICONS[item.label],
    rightSection: collapsed ? undefined : <ItemBadge count={item.badgeCount} />,
    color: item.accent,
    'aria-label': item.label,
    style: { borderRadius: 'var(--mantine-radius-md)' },
  }
  const node =
    item.kind === 'action' ? (
      <NavLink
        component="button"
        {...common}
        onClick={() => {
          if (item.action === 'logout') signOut()
          onNavigate?.()
        }}
      />
    ) : (
      <NavLink component={Link} to={item.url ?? '/'} active={isItemActive(item, pathname)} onClick={onNavigate} {...common} />
    )
  if (!collapsed) return node
  return (
    <Tooltip
      label={item.tooltip ?? item.label}
      position="right"
      withArrow
      openDelay={HOVER_OPEN_DELAY_MS}
      closeDelay={HOVER_CLOSE_DELAY_MS}
    >
      <Box>{node}</Box>
    </Tooltip>
  )
}

function SubmenuItem({
  item,
  pathname,
  collapsed,
  opened,
  onToggle,
  onNavigate,
}: {
  item: NavItem
  pathname: string
  collapsed: boolean
  opened: boolean
  onToggle: () => void
  onNavigate?: () => void
}) {
  const children = item.children ?? []
  if (collapsed) {
    // collapsed mode: a hover popup opens after 200 ms and closes after 150 ms (spec 1 §4)
    return (
      <HoverCard position="right-start" openDelay={HOVER_OPEN_DELAY_MS} closeDelay={HOVER_CLOSE_DELAY_MS} shadow="md" withinPortal>
        <HoverCard.Target>
          <NavLink
            component="button"
            aria-label={item.label}
            leftSection={ICONS[item.label]}
            active={isItemActive(item, pathname)}
            style={{ borderRadius: 'var(--mantine-radius-md)' }}
          />
        </HoverCard.Target>
        <HoverCard.Dropdown p={6} miw={180}>
          <Text size="xs" fw={700} c="dimmed" px="sm" py={4}>
            {item.label}
          </Text>
          {children.map((child) => (
            <LeafItem key={child.label} item={child} pathname={pathname} collapsed={false} onNavigate={onNavigate} />
          ))}
        </HoverCard.Dropdown>
      </HoverCard>
    )
  }
  return (
    <NavLink
      label={item.label}
      leftSection={ICONS[item.label]}
      opened={opened}
      onChange={onToggle}
      active={isItemActive(item, pathname)}
      variant="subtle"
      style={{ borderRadius: 'var(--mantine-radius-md)' }}
    >
      {children.map((child) => (
        <LeafItem key={child.label} item={child} pathname={pathname} collapsed={false} onNavigate={onNavigate} />
      ))}
    </NavLink>
  )
}

function initials(email: string): string {
  const name = email.split('@')[0] ?? ''
  const parts = name.split(/[._-]+/).filter(Boolean)
  return ((parts[0]?.[0] ?? '') + (parts[1]?.[0] ?? '')).toUpperCase() || '?'
}

function UserMenu({ email, collapsed }: { email: string; collapsed: boolean }) {
  const signOut = useSignOut()
  const navigate = useNavigate()
  return (
    <Menu position="right-end" withinPortal shadow="md" width={220}>
      <Menu.Target>
        <UnstyledButton aria-label="User menu" w="100%">
          <Group gap="sm" wrap="nowrap" justify={collapsed ? 'center' : 'flex-start'}>
            <Avatar color="citrus" radius="xl" size={36}>
              {initials(email)}
            </Avatar>
            {!collapsed && (
              <Text size="sm" truncate="end" maw={140}>
                {email}
              </Text>
            )}
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{email}</Menu.Label>
        <Menu.Item leftSection={<IconUser size={16} />} onClick={() => navigate('/user-settings')}>
          Profile
        </Menu.Item>
        <Menu.Item color="red" leftSection={<IconLogout size={16} />} onClick={signOut}>
          Logout
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  )
}

export interface SidebarProps {
  collapsed: boolean
  /** called after a navigation (closes the mobile drawer) */
  onNavigate?: () => void
  hiddenLabels?: readonly string[]
}

/** Sidebar (spec 1 §2, §6): logo, role- and product-filtered items, version when collapsed, avatar menu. */
export function Sidebar({ collapsed, onNavigate, hiddenLabels }: SidebarProps) {
  const session = useSession()
  const products = useProducts()
  const { pathname } = useLocation()
  const role = session.authenticated ? session.role : 'guest'
  const home = useHomePath()
  const items = filterNavItems(NAV_ITEMS, { role, products: products.groups, hiddenLabels })
  const [opened, setOpened] = useState<Set<string>>(() => new Set(submenusToExpand(items, pathname)))

  // a submenu auto-expands when the route moves inside it (adjusted while rendering, not in an effect)
  const autoExpand = submenusToExpand(items, pathname).join('|')
  const [expandedFor, setExpandedFor] = useState(autoExpand)
  if (autoExpand !== expandedFor) {
    setExpandedFor(autoExpand)
    if (autoExpand) setOpened((current) => new Set([...current, ...autoExpand.split('|')]))
  }

  return (
    <Stack h="100%" gap={0} data-collapsed={collapsed}>
      <Box p="md" pb="sm">
        {/* the logo leads home; a shared-link visitor has no home beyond the link's pages, so it is no link */}
        {home ? (
          <Link to={home} aria-label={homeActionLabel(home)} style={{ textDecoration: 'none', color: 'inherit' }}>
            <Logo compact={collapsed} />
          </Link>
        ) : (
          <Logo compact={collapsed} />
        )}
      </Box>
      <ScrollArea flex={1} px="xs" component="nav" aria-label="Main navigation">
        <Stack gap={2}>
          {items.map((item) => (
            <Box key={item.label}>
              {item.dividerBefore && <Divider my="xs" />}
              {item.kind === 'submenu' ? (
                <SubmenuItem
                  item={item}
                  pathname={pathname}
                  collapsed={collapsed}
                  opened={opened.has(item.label)}
                  onToggle={() =>
                    setOpened((current) => {
                      const next = new Set(current)
                      if (next.has(item.label)) next.delete(item.label)
                      else next.add(item.label)
                      return next
                    })
                  }
                  onNavigate={onNavigate}
                />
              ) : (
                <LeafItem item={item} pathname={pathname} collapsed={collapsed} onNavigate={onNavigate} />
              )}
            </Box>
          ))}
        </Stack>
      </ScrollArea>
      <Stack p="md" gap="xs" align={collapsed ? 'center' : 'stretch'}>
        {collapsed && (
          <Text size="xs" c="dimmed" ta="center" data-testid="version-label">
            {APP_VERSION}
          </Text>
        )}
        {session.authenticated && session.user && <UserMenu email={session.user.email} collapsed={collapsed} />}
      </Stack>
    </Stack>
  )
}
