import type { ClientRoute } from '@citrus/contracts'
import { useEffect, type ReactNode } from 'react'
import { Navigate, useLocation, useSearchParams } from 'react-router'
import { AccessRestricted, InvalidLink, ProductAccessRequired } from '../../components/errors/full-screen-denial'
import { FullScreenLoader } from '../../components/feedback/loading'
import { evaluateAccess, type AccessContext } from '../../lib/authorization'
import { startGuestSession, useGuestSession } from '../../lib/guest-session'
import { useProducts } from '../../lib/products'
import { useSession } from '../../lib/session'

/** Gathers session, guest link and products, then applies the pure guard (lib/authorization). */
export function useAccessContext(route: Pick<ClientRoute, 'roles'>): AccessContext {
  const session = useSession()
  const guest = useGuestSession()
  const products = useProducts()
  const location = useLocation()
  const [searchParams] = useSearchParams()

  // A shareable token in the URL of a guarded page starts a guest session (spec 1 §4).
  const urlToken = route.roles !== null && !session.authenticated ? searchParams.get('token') : null
  useEffect(() => {
    if (urlToken) void startGuestSession(urlToken)
  }, [urlToken])

  let guestCtx: AccessContext['guest'] = { status: 'none' }
  if (urlToken && (guest.status === 'none' || guest.token !== urlToken)) guestCtx = { status: 'validating' }
  else if (guest.status === 'active') guestCtx = { status: 'active', clientRoutes: guest.payload.client_routes }
  else if (guest.status === 'validating') guestCtx = { status: 'validating' }
  else if (guest.status === 'invalid' && urlToken) guestCtx = { status: 'invalid' }

  const role = session.authenticated ? session.role : guest.status === 'active' ? guest.role : 'guest'
  return {
    pathname: location.pathname,
    search: location.search,
    origin: (location.state as { from?: string } | null)?.from ?? null,
    authenticated: session.authenticated,
    role,
    guest: guestCtx,
    products: products.status === 'loading' ? 'loading' : products.groups,
  }
}

export function RouteGuard({ route, children }: { route: ClientRoute; children: ReactNode }) {
  const ctx = useAccessContext(route)
  const outcome = evaluateAccess(route, ctx)
  switch (outcome.type) {
    case 'allow':
      return <>{children}</>
    case 'pending':
      return <FullScreenLoader />
    case 'redirect':
      return <Navigate to={outcome.to} replace state={outcome.from ? { from: outcome.from } : undefined} />
    case 'role-denied':
      return <AccessRestricted role={outcome.role} />
    case 'product-denied':
      return <ProductAccessRequired product={outcome.product} />
    case 'invalid-link':
      return <InvalidLink />
  }
}
