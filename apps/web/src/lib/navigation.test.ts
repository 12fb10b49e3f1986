import { CLIENT_ROUTES, PRODUCT_GROUPS, type ProductGroup, type SessionRole } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { NAV_ITEMS } from '../components/layouts/nav-items'
import { evaluateAccess } from './authorization'
import {
  breadcrumbsFor,
  filterNavItems,
  findClientRoute,
  homeActionLabel,
  homeFor,
  isItemActive,
  submenusToExpand,
  type NavItem,
  type Viewer,
} from './navigation'

const ALL = ['ATLAS', 'SYNTHESIS', 'SEARCH', 'CARE_SELECT', 'NOVA'] as const

function labels(role: SessionRole, products: readonly (typeof ALL)[number][] = ALL, hiddenLabels?: string[]): string[] {
  return filterNavItems(NAV_ITEMS, { role, products, hiddenLabels }).flatMap((item) =>
    item.kind === 'submenu' ? [item.label, ...(item.children ?? []).map((child) => `${item.label} › ${child.label}`)] : [item.label],
  )
}

describe('sidebar items by role and product (spec 1 §6)', () => {
  it('citrus sees everything signed-in', () => {
    expect(labels('citrus')).toEqual([
      'Home',
      'Atlas',
      'Care Connect',
      'Nova',
      'Team Settings',
      'Team Settings › Manage Team',
      'Team Settings › API Keys',
      'Super Admin Settings',
      'Super Admin Settings › Companies',
      'User Settings',
      'User Settings › Profile',
      'User Settings › Logout',
    ])
  })

  it('admin: apps but Nova (citrus only), team settings and user settings; no super admin', () => {
    expect(labels('admin')).toEqual([
      'Home',
      'Atlas',
      'Care Connect',
      'Team Settings',
      'Team Settings › Manage Team',
      'Team Settings › API Keys',
      'User Settings',
      'User Settings › Profile',
      'User Settings › Logout',
    ])
  })

  it('user: apps and user settings', () => {
    expect(labels('user')).toEqual(['Home', 'Atlas', 'Care Connect', 'User Settings', 'User Settings › Profile', 'User Settings › Logout'])
  })

  it('member: user settings only', () => {
    expect(labels('member')).toEqual(['User Settings', 'User Settings › Profile', 'User Settings › Logout'])
  })

  it('guest: Login and Sign-Up only', () => {
    expect(labels('guest')).toEqual(['Login', 'Sign-Up'])
  })

  it('hides app links whose product group the company lacks', () => {
    expect(labels('admin', ['ATLAS'])).toEqual(expect.arrayContaining(['Home', 'Atlas']))
    expect(labels('admin', ['ATLAS'])).not.toContain('Care Connect')
    expect(labels('admin', ['ATLAS'])).not.toContain('Nova')
    expect(labels('user', [])).toEqual(['Home', 'User Settings', 'User Settings › Profile', 'User Settings › Logout'])
  })

  it('never offers a link the route guard would refuse (every role × with and without products)', () => {
    const links = (items: readonly NavItem[]): NavItem[] =>
      items.flatMap((item) => (item.kind === 'submenu' ? links(item.children ?? []) : [item]))
    const roles: SessionRole[] = ['admin', 'citrus', 'user', 'member']
    for (const role of roles) {
      for (const products of [[...PRODUCT_GROUPS], [], ['ATLAS']] as ProductGroup[][]) {
        for (const item of links(filterNavItems(NAV_ITEMS, { role, products }))) {
          if (item.kind !== 'link' || !item.url) continue
          const route = findClientRoute(item.url)
          expect(route, item.url).toBeDefined()
          const outcome = evaluateAccess(route!, { pathname: item.url, authenticated: true, role, guest: { status: 'none' }, products })
          expect(outcome, `${role} ${item.label} with [${products.join(',')}]`).toEqual({ type: 'allow' })
        }
      }
    }
  })

  it('takes roles and product of each link from its route in CLIENT_ROUTES', () => {
    const nova = NAV_ITEMS.find((item) => item.label === 'Nova')
    expect(nova).toMatchObject({ url: '/nova-search', roles: ['citrus'], product: 'NOVA' })
    const home = NAV_ITEMS.find((item) => item.label === 'Home')
    expect(home?.roles).toEqual(CLIENT_ROUTES.find((route) => route.path === '/apps')?.roles)
  })

  it('hides single items by label and drops empty submenus', () => {
    expect(labels('admin', ALL, ['Atlas', 'Manage Team', 'API Keys'])).not.toContain('Team Settings')
    expect(labels('admin', ALL, ['Atlas'])).not.toContain('Atlas')
  })
})

describe('active items and submenu auto-expand', () => {
  const items: NavItem[] = filterNavItems(NAV_ITEMS, { role: 'citrus', products: ALL })

  it('expands the submenu that holds the current route', () => {
    expect(submenusToExpand(items, '/api-keys')).toEqual(['Team Settings'])
    expect(submenusToExpand(items, '/user-settings')).toEqual(['User Settings'])
    expect(submenusToExpand(items, '/apps')).toEqual([])
  })

  it('marks links active for their path and sub-paths', () => {
    const atlas = items.find((item) => item.label === 'Atlas')
    expect(atlas && isItemActive(atlas, '/atlas-search')).toBe(true)
    expect(atlas && isItemActive(atlas, '/atlas-search/')).toBe(true)
    expect(atlas && isItemActive(atlas, '/apps')).toBe(false)
  })
})

describe('route lookup and breadcrumbs', () => {
  it('finds documented routes, including parameters', () => {
    expect(findClientRoute('/company/3/users')?.path).toBe('/company/:companyId/users')
    expect(findClientRoute('/provider-cost-transparency/1234567893')?.path).toBe('/provider-cost-transparency/:npi')
    expect(findClientRoute('/nope')).toBeUndefined()
  })

  const admin: Viewer = { kind: 'signed-in', role: 'admin' }

  it('builds Apps › app › page', () => {
    expect(breadcrumbsFor('/atlas-search', admin)).toEqual([{ label: 'Apps', to: '/apps' }, { label: 'Atlas' }, { label: 'Atlas Search' }])
    expect(breadcrumbsFor('/data-dictionary', admin)).toEqual([{ label: 'Apps', to: '/apps' }, { label: 'Data Dictionary' }])
    expect(breadcrumbsFor('/apps', admin)).toEqual([{ label: 'Apps' }])
    expect(breadcrumbsFor('/sign-in', admin)).toEqual([])
  })

  it('offers the Apps crumb only to viewers who may open /apps', () => {
    const page = [{ label: 'Care Connect' }, { label: 'Member Recommendations' }]
    expect(breadcrumbsFor('/member-recommendations', { kind: 'link-guest' })).toEqual(page)
    expect(breadcrumbsFor('/member-recommendations', { kind: 'signed-in', role: 'member' })).toEqual(page)
    expect(breadcrumbsFor('/data-dictionary', { kind: 'anonymous' })).toEqual([{ label: 'Data Dictionary' }])
  })
})

describe('home actions', () => {
  it("go to the role's home: /price-check for members, /apps for staff; nowhere for a shared-link visitor", () => {
    expect(homeFor({ kind: 'signed-in', role: 'member' })).toBe('/price-check')
    for (const role of ['admin', 'citrus', 'user'] as const) expect(homeFor({ kind: 'signed-in', role })).toBe('/apps')
    expect(homeFor({ kind: 'link-guest' })).toBeNull()
    expect(homeFor({ kind: 'anonymous' })).toBe('/sign-in')
  })

  it('every signed-in home is a page the role may open', () => {
    for (const role of ['admin', 'citrus', 'user', 'member'] as const) {
      const home = homeFor({ kind: 'signed-in', role }) as string
      const outcome = evaluateAccess(findClientRoute(home)!, {
        pathname: home,
        authenticated: true,
        role,
        guest: { status: 'none' },
        products: [],
      })
      expect(outcome).toEqual({ type: 'allow' })
    }
  })

  it("labels the action 'Back to Apps' for the launcher and 'Back Home' otherwise", () => {
    expect(homeActionLabel('/apps')).toBe('Back to Apps')
    expect(homeActionLabel('/price-check')).toBe('Back Home')
  })
})
