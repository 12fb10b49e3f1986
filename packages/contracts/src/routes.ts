import type { ProductGroup, SessionRole } from './access.js'

/** The app a client route belongs to (for "coming soon" pages, breadcrumbs and the launcher). */
export type AppArea = 'Platform' | 'Accounts' | 'Administration' | 'Care Connect' | 'Price Check' | 'Atlas' | 'Nova' | 'Data Dictionary'

export interface ClientRoute {
  /** React Router path pattern */
  path: string
  title: string
  area: AppArea
  /** null = no role guard (public pages, generic Atlas) */
  roles: readonly SessionRole[] | null
  product?: ProductGroup
  /** pages only for signed-out visitors (sign-in, sign-up, ...) */
  publicOnly?: boolean
}

const ALL_SIGNED_IN = ['admin', 'citrus', 'user', 'member'] as const
const STAFF = ['admin', 'citrus', 'user'] as const
const MEMBER_FACING = ['member', 'admin', 'citrus'] as const

/** The client route table of spec 1 §2, spec 2 §2 and spec 3 §2. */
export const CLIENT_ROUTES = [
  { path: '/', title: 'Apps', area: 'Platform', roles: ALL_SIGNED_IN },
  { path: '/apps', title: 'Apps', area: 'Platform', roles: ['admin', 'citrus', 'user'] },
  { path: '/sign-in', title: 'Sign In', area: 'Accounts', roles: null, publicOnly: true },
  { path: '/sign-up', title: 'Sign Up', area: 'Accounts', roles: null, publicOnly: true },
  { path: '/password-reset-email', title: 'Reset Password', area: 'Accounts', roles: null },
  { path: '/password-reset', title: 'Set New Password', area: 'Accounts', roles: null },
  { path: '/data-dictionary', title: 'Data Dictionary', area: 'Data Dictionary', roles: null },
  { path: '/price-check', title: 'Price Check', area: 'Price Check', roles: ['member', 'admin', 'citrus', 'user'] },
  { path: '/price-check/results', title: 'Price Check Results', area: 'Price Check', roles: MEMBER_FACING },
  { path: '/member-recommendations', title: 'Member Recommendations', area: 'Care Connect', roles: MEMBER_FACING },
  { path: '/provider-cost-transparency/:npi', title: 'Provider Cost Transparency', area: 'Price Check', roles: MEMBER_FACING },
  { path: '/atlas-search', title: 'Atlas Search', area: 'Atlas', roles: STAFF, product: 'ATLAS' },
  { path: '/atlas-results', title: 'Atlas Results', area: 'Atlas', roles: STAFF, product: 'ATLAS' },
  { path: '/care-connect-search', title: 'Care Connect Search', area: 'Care Connect', roles: STAFF, product: 'CARE_SELECT' },
  { path: '/care-connect-results', title: 'Care Connect Results', area: 'Care Connect', roles: STAFF, product: 'CARE_SELECT' },
  { path: '/atlas/generic', title: 'Generic Atlas', area: 'Atlas', roles: null },
  { path: '/atlas/generic/results', title: 'Generic Atlas Results', area: 'Atlas', roles: null },
  { path: '/nova-search', title: 'Nova Search', area: 'Nova', roles: ['citrus'], product: 'NOVA' },
  { path: '/nova-results', title: 'Nova Results', area: 'Nova', roles: ['citrus'], product: 'NOVA' },
  { path: '/user-settings', title: 'User Settings', area: 'Platform', roles: ['user', 'admin', 'citrus', 'member'] },
  { path: '/api-keys', title: 'API Keys', area: 'Administration', roles: ['admin', 'citrus'] },
  { path: '/team-management', title: 'Team Management', area: 'Administration', roles: ['admin', 'citrus'] },
  { path: '/citrus-admin', title: 'Super Admin Dashboard', area: 'Administration', roles: ['citrus'] },
  { path: '/company/:companyId/users', title: 'Company Users', area: 'Administration', roles: ['citrus'] },
  { path: '/not-authorized', title: 'Not Authorized', area: 'Platform', roles: null },
  /** the AI Hub on its own page (?app=nova for Nova's credits); also the ai-hub tab of Atlas and Nova's Strategy Hub */
  { path: '/ai-hub', title: 'AI Hub', area: 'Atlas', roles: STAFF },
] as const satisfies readonly ClientRoute[]

export type ClientRoutePath = (typeof CLIENT_ROUTES)[number]['path']

/** Where a role lands after signing in (spec 1 §2). */
export function homePathFor(role: SessionRole): '/price-check' | '/apps' {
  return role === 'member' ? '/price-check' : '/apps'
}
