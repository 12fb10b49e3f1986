import { CLIENT_ROUTES, homePathFor, type ClientRoute, type ProductGroup, type SessionRole } from '@citrus/contracts'
import { matchPath } from 'react-router'
import { isGuestPathAllowed } from './guest-session'

/** Everything the route guard looks at, already resolved (so the guard is a pure function). */
export interface AccessContext {
  /** the path being visited (for the guest route check and the sign-in origin) */
  pathname: string
  /** search string of the visit, kept in the sign-in origin */
  search?: string
  /** the origin remembered by an earlier sign-in redirect (router location state) */
  origin?: string | null
  /** a login token exists and has not expired */
  authenticated: boolean
  /** the normalised role of the login token, or of the guest session, or guest */
  role: SessionRole
  /** the shareable-link session: none, being validated, active (with its allowed routes) or rejected */
  guest: { status: 'none' } | { status: 'validating' } | { status: 'invalid' } | { status: 'active'; clientRoutes: readonly string[] }
  /** the company's product groups, or 'loading' while the products call is pending */
  products: readonly ProductGroup[] | 'loading'
}

export type AccessOutcome =
  | { type: 'allow' }
  /** still resolving the guest link or the products: show a loader */
  | { type: 'pending' }
  | { type: 'redirect'; to: string; reason: 'sign-in' | 'signed-in' | 'not-authorized'; from?: string }
  /** 'Access Restricted' */
  | { type: 'role-denied'; role: SessionRole }
  /** 'Product Access Required' */
  | { type: 'product-denied'; product: ProductGroup }
  /** 'Invalid or Expired Link' */
  | { type: 'invalid-link' }

export type GuardedRoute = Pick<ClientRoute, 'path' | 'roles' | 'product' | 'publicOnly'>

/** The documented route a path (without query) belongs to. */
export function findClientRoute(pathname: string): ClientRoute | undefined {
  return (CLIENT_ROUTES as readonly ClientRoute[]).find((route) => matchPath({ path: route.path, end: true }, pathname))
}

/**
 * May this role open the route? Public routes (roles null) are open to everyone, except the pages only for
 * signed-out visitors (sign-in, sign-up), which only a guest opens. The guard, the sidebar, the launcher and
 * every "home" action share this rule, so nothing offers a page that then answers 'Access Restricted'.
 */
export function roleMayOpen(route: Pick<ClientRoute, 'roles' | 'publicOnly'>, role: SessionRole): boolean {
  if (route.roles === null) return !route.publicOnly || role === 'guest'
  return (route.roles as readonly SessionRole[]).includes(role)
}

/** Does the company hold the route's product (routes without a product need none)? */
export function productAllows(route: Pick<ClientRoute, 'product'>, products: readonly ProductGroup[]): boolean {
  return !route.product || products.includes(route.product)
}

/** Role and product rule together: the route neither answers 'Access Restricted' nor 'Product Access Required'. */
export function canOpenRoute(route: GuardedRoute, role: SessionRole, products: readonly ProductGroup[]): boolean {
  return roleMayOpen(route, role) && productAllows(route, products)
}

/** canOpenRoute for a path with an optional query; an undocumented path opens nothing but the not-found page. */
export function canOpenPath(path: string, role: SessionRole, products: readonly ProductGroup[]): boolean {
  const route = findClientRoute(path.split(/[?#]/)[0] ?? path)
  return route !== undefined && canOpenRoute(route, role, products)
}

/**
 * The route guard of spec 1 §4, in its order: token check, sign-in redirect (remembering the origin),
 * role check, product check, guest route check. Public routes (roles null) need no token; the
 * sign-in/sign-up pages send a signed-in user home.
 */
export function evaluateAccess(route: GuardedRoute, ctx: AccessContext): AccessOutcome {
  if (route.roles === null) {
    if (route.publicOnly && ctx.authenticated) return { type: 'redirect', to: postLoginPath(ctx.role, ctx.origin), reason: 'signed-in' }
    return { type: 'allow' }
  }

  // 1. token check, 2. sign-in redirect
  const guestActive = !ctx.authenticated && ctx.guest.status === 'active'
  if (!ctx.authenticated && !guestActive) {
    if (ctx.guest.status === 'validating') return { type: 'pending' }
    if (ctx.guest.status === 'invalid') return { type: 'invalid-link' }
    return { type: 'redirect', to: '/sign-in', reason: 'sign-in', from: `${ctx.pathname}${ctx.search ?? ''}` }
  }

  // A guest outside the link's client_routes is never shown a role or product denial: the only
  // answer for a disallowed path is /not-authorized (spec 1 §4, §6).
  const notAuthorized: AccessOutcome = { type: 'redirect', to: '/not-authorized', reason: 'not-authorized' }
  const guestOutside = guestActive && ctx.guest.status === 'active' && !isGuestPathAllowed(ctx.pathname, ctx.guest.clientRoutes)

  // 3. role check
  if (!roleMayOpen(route, ctx.role)) {
    return guestOutside ? notAuthorized : { type: 'role-denied', role: ctx.role }
  }

  // 4. product check (guests hold no products)
  if (route.product) {
    if (guestActive) return guestOutside ? notAuthorized : { type: 'product-denied', product: route.product }
    if (ctx.products === 'loading') return { type: 'pending' }
    if (!productAllows(route, ctx.products)) return { type: 'product-denied', product: route.product }
  }

  // 5. guest route check
  if (guestOutside) return notAuthorized

  return { type: 'allow' }
}

/**
 * Where sign-in should return to: the remembered origin when it is a same-site path the role may open
 * (so a member remembered on /apps lands on /price-check, not on 'Access Restricted'), else the role's home.
 * Products are not known yet at sign-in; a product the company lacks is explained on the page itself.
 */
export function postLoginPath(role: SessionRole, from: string | null | undefined): string {
  const home = homePathFor(role)
  if (!from || !from.startsWith('/') || from.startsWith('//') || from.startsWith('/\\')) return home
  const route = findClientRoute(from.split(/[?#]/)[0] ?? from)
  if (!route || route.area === 'Accounts' || route.path === '/not-authorized' || !roleMayOpen(route, role)) return home
  return from
}
