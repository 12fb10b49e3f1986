import { routeLink, type NavItem } from '../../lib/navigation'

const SIGNED_IN = ['citrus', 'admin', 'user', 'member'] as const

/**
 * The sidebar of spec 1 §6. Links take their roles and product group from their route in CLIENT_ROUTES
 * (routeLink), so an item is offered exactly when the guard would open its page. Icons are looked up by label.
 */
export const NAV_ITEMS: NavItem[] = [
  routeLink('/apps', 'Home', { section: 'Apps' }),
  routeLink('/atlas-search', 'Atlas', { section: 'Apps', tooltip: 'Atlas search' }),
  routeLink('/care-connect-search', 'Care Connect', { section: 'Apps', tooltip: 'Care Connect search' }),
  routeLink('/nova-search', 'Nova', { section: 'Apps', accent: 'grape', tooltip: 'Nova search' }),
  {
    kind: 'submenu',
    label: 'Team Settings',
    roles: ['admin', 'citrus'],
    section: 'Settings',
    dividerBefore: true,
    children: [routeLink('/team-management', 'Manage Team'), routeLink('/api-keys', 'API Keys')],
  },
  {
    kind: 'submenu',
    label: 'Super Admin Settings',
    roles: ['citrus'],
    section: 'Settings',
    children: [routeLink('/citrus-admin', 'Companies')],
  },
  {
    kind: 'submenu',
    label: 'User Settings',
    roles: SIGNED_IN,
    section: 'Settings',
    children: [routeLink('/user-settings', 'Profile'), { kind: 'action', label: 'Logout', action: 'logout', roles: SIGNED_IN }],
  },
  routeLink('/sign-in', 'Login', { dividerBefore: true }),
  routeLink('/sign-up', 'Sign-Up'),
]
