import { homePathFor, type ClientRoute, type ProductGroup, type SessionRole } from '@citrus/contracts'
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
  const guestOutside =
    guestActive && ctx.guest.status === 'active' && !isGuestPathAllowed(ctx.pathname, ctx.guest.clientRoutes)

  // 3. role check
  if (!(route.roles as readonly SessionRole[]).includes(ctx.role)) {
    return guestOutside ? notAuthorized : { type: 'role-denied', role: ctx.role }
  }

  // 4. product check (guests hold no products)
  if (route.product) {
    if (guestActive) return guestOutside ? notAuthorized : { type: 'product-denied', product: route.product }
    if (ctx.products === 'loading') return { type: 'pending' }
    if (!ctx.products.includes(route.product)) return { type: 'product-denied', product: route.product }
  }

  // 5. guest route check
  if (guestOutside) return notAuthorized

  return { type: 'allow' }
}

/** Where sign-in should return to: the remembered origin, unless it is an account page. */
export function postLoginPath(role: SessionRole, from: string | null | undefined): string {
  if (from && from.startsWith('/') && !from.startsWith('//') && !/^\/(sign-in|sign-up|password-reset)/.test(from)) return from
  return homePathFor(role)
}
