import type { SessionRole } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { NAV_ITEMS } from '../components/layouts/nav-items'
import { breadcrumbsFor, filterNavItems, findClientRoute, isItemActive, submenusToExpand, type NavItem } from './navigation'

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

  it('admin: apps, team settings and user settings; no super admin', () => {
    expect(labels('admin')).toEqual([
      'Home',
      'Atlas',
      'Care Connect',
      'Nova',
      'Team Settings',
      'Team Settings › Manage Team',
      'Team Settings › API Keys',
      'User Settings',
      'User Settings › Profile',
      'User Settings › Logout',
    ])
  })

  it('user: apps and user settings', () => {
    expect(labels('user')).toEqual(['Home', 'Atlas', 'Care Connect', 'Nova', 'User Settings', 'User Settings › Profile', 'User Settings › Logout'])
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

  it('builds Apps › app › page', () => {
    expect(breadcrumbsFor('/atlas-search')).toEqual([{ label: 'Apps', to: '/apps' }, { label: 'Atlas' }, { label: 'Atlas Search' }])
    expect(breadcrumbsFor('/data-dictionary')).toEqual([{ label: 'Apps', to: '/apps' }, { label: 'Data Dictionary' }])
    expect(breadcrumbsFor('/apps')).toEqual([{ label: 'Apps' }])
    expect(breadcrumbsFor('/sign-in')).toEqual([])
  })
})
