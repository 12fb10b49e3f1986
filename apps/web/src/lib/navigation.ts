import { CLIENT_ROUTES, type ClientRoute, type ProductGroup, type SessionRole } from '@citrus/contracts'
import { matchPath } from 'react-router'

/** Layout constants of spec 1 §9. */
export const SIDEBAR_WIDTH_OPEN = 220
export const SIDEBAR_WIDTH_COLLAPSED = 72
export const HEADER_HEIGHT = 72
export const HOVER_OPEN_DELAY_MS = 200
export const HOVER_CLOSE_DELAY_MS = 150
export const SIDEBAR_COLLAPSED_STORAGE_KEY = 'sidebarCollapsed'

/** Nav item (spec 1 §3): kind, label, url, roles, accent, section, required product group, tooltip, dividerBefore, badgeCount. */
export interface NavItem {
  kind: 'link' | 'action' | 'submenu'
  label: string
  url?: string
  roles: readonly SessionRole[]
  accent?: string
  section?: string
  product?: ProductGroup
  tooltip?: string
  dividerBefore?: boolean
  badgeCount?: number
  /** for kind 'action' */
  action?: 'logout'
  /** for kind 'submenu' */
  children?: NavItem[]
}

export interface NavFilter {
  role: SessionRole
  products: readonly ProductGroup[]
  /** single items can be hidden by label */
  hiddenLabels?: readonly string[]
}

/** Keeps the items the role may see and whose product the company holds; empty submenus disappear (spec 1 §6). */
export function filterNavItems(items: readonly NavItem[], filter: NavFilter): NavItem[] {
  const hidden = new Set(filter.hiddenLabels ?? [])
  const result: NavItem[] = []
  for (const item of items) {
    if (hidden.has(item.label)) continue
    if (!item.roles.includes(filter.role)) continue
    if (item.product && !filter.products.includes(item.product)) continue
    if (item.kind === 'submenu') {
      const children = filterNavItems(item.children ?? [], filter)
      if (children.length === 0) continue
      result.push({ ...item, children })
    } else {
      result.push(item)
    }
  }
  return result
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path
}

/** True when the current path is the item's url or below it. */
export function isItemActive(item: NavItem, pathname: string): boolean {
  if (item.kind === 'submenu') return (item.children ?? []).some((child) => isItemActive(child, pathname))
  if (!item.url) return false
  const url = trimSlash(item.url)
  const path = trimSlash(pathname)
  return path === url || (url !== '/' && path.startsWith(`${url}/`))
}

/** A submenu auto-expands when the current route is inside it (spec 1 §4). */
export function submenusToExpand(items: readonly NavItem[], pathname: string): string[] {
  return items.filter((item) => item.kind === 'submenu' && isItemActive(item, pathname)).map((item) => item.label)
}

/** The documented route a path belongs to. */
export function findClientRoute(pathname: string): ClientRoute | undefined {
  return (CLIENT_ROUTES as readonly ClientRoute[]).find((route) => matchPath({ path: route.path, end: true }, pathname))
}

export interface Breadcrumb {
  label: string
  to?: string
}

/** Apps › {app} › {page}; the last crumb is the current page. */
export function breadcrumbsFor(pathname: string): Breadcrumb[] {
  const route = findClientRoute(pathname)
  if (!route || route.area === 'Accounts') return []
  if (route.path === '/' || route.path === '/apps') return [{ label: 'Apps' }]
  const crumbs: Breadcrumb[] = [{ label: 'Apps', to: '/apps' }]
  if (route.area !== 'Platform' && route.area !== route.title) crumbs.push({ label: route.area })
  crumbs.push({ label: route.title })
  return crumbs
}
