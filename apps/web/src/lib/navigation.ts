import { CLIENT_ROUTES, homePathFor, type ClientRoute, type ClientRoutePath, type ProductGroup, type SessionRole } from '@citrus/contracts'
import { canOpenRoute, findClientRoute } from './authorization'

export { findClientRoute }

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

/**
 * A sidebar link to a documented route: its roles and product are the route's own (CLIENT_ROUTES), so the
 * sidebar cannot offer a page that the guard then refuses.
 */
export function routeLink(
  path: ClientRoutePath,
  label: string,
  extra: Omit<NavItem, 'kind' | 'label' | 'url' | 'roles' | 'product'> = {},
): NavItem {
  const route = (CLIENT_ROUTES as readonly ClientRoute[]).find((candidate) => candidate.path === path)
  if (!route) throw new Error(`No client route ${path}`)
  const roles: readonly SessionRole[] = route.roles ?? (route.publicOnly ? ['guest'] : ['admin', 'citrus', 'user', 'member', 'guest'])
  return { kind: 'link', label, url: path, roles, ...(route.product ? { product: route.product } : {}), ...extra }
}

/** The item's own roles and product, and for a link to a documented route the guard's rule as well. */
function itemAllowed(item: NavItem, filter: NavFilter): boolean {
  if (!item.roles.includes(filter.role)) return false
  if (item.product && !filter.products.includes(item.product)) return false
  const route = item.kind === 'link' && item.url ? findClientRoute(item.url) : undefined
  return route === undefined || canOpenRoute(route, filter.role, filter.products)
}

/** Keeps the items the role may open and whose product the company holds; empty submenus disappear (spec 1 §6). */
export function filterNavItems(items: readonly NavItem[], filter: NavFilter): NavItem[] {
  const hidden = new Set(filter.hiddenLabels ?? [])
  const result: NavItem[] = []
  for (const item of items) {
    if (hidden.has(item.label)) continue
    if (!itemAllowed(item, filter)) continue
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

/** Who is looking at the shell: a signed-in role, a visitor on a shared link, or an anonymous visitor. */
export type Viewer = { kind: 'signed-in'; role: SessionRole } | { kind: 'link-guest' } | { kind: 'anonymous' }

/**
 * The target of every "home" action (logo, Back Home, Back to Apps, breadcrumb root): the role's home
 * (/price-check for members, /apps otherwise). A visitor on a shared link has no home beyond the pages the
 * link allows, so there is none (null): those actions are hidden. An anonymous visitor is sent to sign in.
 */
export function homeFor(viewer: Viewer): string | null {
  if (viewer.kind === 'signed-in') return homePathFor(viewer.role)
  if (viewer.kind === 'link-guest') return null
  return '/sign-in'
}

/** The label of the home action: 'Back to Apps' when home is the launcher, else 'Back Home'. */
export function homeActionLabel(home: string): 'Back to Apps' | 'Back Home' {
  return home === '/apps' ? 'Back to Apps' : 'Back Home'
}

export interface Breadcrumb {
  label: string
  to?: string
}

/**
 * Apps › {app} › {page}; the last crumb is the current page. The root crumb 'Apps' links to /apps only for a
 * viewer who may open it; a member or a shared-link visitor sees the app and page crumbs alone.
 */
export function breadcrumbsFor(pathname: string, viewer: Viewer): Breadcrumb[] {
  const route = findClientRoute(pathname)
  if (!route || route.area === 'Accounts') return []
  const appsOpen = viewer.kind === 'signed-in' && homeFor(viewer) === '/apps'
  if (route.path === '/' || route.path === '/apps') return [{ label: 'Apps' }]
  const crumbs: Breadcrumb[] = appsOpen ? [{ label: 'Apps', to: '/apps' }] : []
  if (route.area !== 'Platform' && route.area !== route.title) crumbs.push({ label: route.area })
  crumbs.push({ label: route.title })
  return crumbs
}
