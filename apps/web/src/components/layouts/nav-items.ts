import type { NavItem } from '../../lib/navigation'

const STAFF = ['admin', 'citrus', 'user'] as const
const SIGNED_IN = ['citrus', 'admin', 'user', 'member'] as const

/** The sidebar of spec 1 §6. Icons are looked up by label in the sidebar. */
export const NAV_ITEMS: NavItem[] = [
  { kind: 'link', label: 'Home', url: '/apps', roles: STAFF, section: 'Apps' },
  { kind: 'link', label: 'Atlas', url: '/atlas-search', roles: STAFF, product: 'ATLAS', section: 'Apps', tooltip: 'Atlas search' },
  {
    kind: 'link',
    label: 'Care Connect',
    url: '/care-connect-search',
    roles: STAFF,
    product: 'CARE_SELECT',
    section: 'Apps',
    tooltip: 'Care Connect search',
  },
  { kind: 'link', label: 'Nova', url: '/nova-search', roles: STAFF, product: 'NOVA', section: 'Apps', accent: 'grape', tooltip: 'Nova search' },
  {
    kind: 'submenu',
    label: 'Team Settings',
    roles: ['admin', 'citrus'],
    section: 'Settings',
    dividerBefore: true,
    children: [
      { kind: 'link', label: 'Manage Team', url: '/team-management', roles: ['admin', 'citrus'] },
      { kind: 'link', label: 'API Keys', url: '/api-keys', roles: ['admin', 'citrus'] },
    ],
  },
  {
    kind: 'submenu',
    label: 'Super Admin Settings',
    roles: ['citrus'],
    section: 'Settings',
    children: [{ kind: 'link', label: 'Companies', url: '/citrus-admin', roles: ['citrus'] }],
  },
  {
    kind: 'submenu',
    label: 'User Settings',
    roles: SIGNED_IN,
    section: 'Settings',
    children: [
      { kind: 'link', label: 'Profile', url: '/user-settings', roles: SIGNED_IN },
      { kind: 'action', label: 'Logout', action: 'logout', roles: SIGNED_IN },
    ],
  },
  { kind: 'link', label: 'Login', url: '/sign-in', roles: ['guest'], dividerBefore: true },
  { kind: 'link', label: 'Sign-Up', url: '/sign-up', roles: ['guest'] },
]
