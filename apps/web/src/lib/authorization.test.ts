import { CLIENT_ROUTES, PRODUCT_GROUPS, type ClientRoutePath, type SessionRole } from '@citrus/contracts'
import { describe, expect, it } from 'vitest'
import { canOpenPath, evaluateAccess, postLoginPath, type AccessContext, type AccessOutcome } from './authorization'

/**
 * The role × route matrix of spec 1 §2/§4/§6. Columns: the four signed-in roles (company holds every
 * product), a visitor without token (guest), and a shareable-link guest session whose token carries role
 * member and whose client_routes are the member pages of a shared provider link.
 *   A allowed · S redirect to /sign-in · R 'Access Restricted' · P 'Product Access Required'
 *   N redirect to /not-authorized · H signed-in user sent home (publicOnly pages)
 */
type Code = 'A' | 'S' | 'R' | 'P' | 'N' | 'H'
type Column = 'admin' | 'citrus' | 'user' | 'member' | 'guest' | 'link'
const COLUMNS: Column[] = ['admin', 'citrus', 'user', 'member', 'guest', 'link']

const MATRIX: Record<ClientRoutePath, string> = {
  '/': '                          A A A A S N',
  '/apps': '                      A A A R S N',
  '/sign-in': '                   H H H H A A',
  '/sign-up': '                   H H H H A A',
  '/password-reset-email': '      A A A A A A',
  '/password-reset': '            A A A A A A',
  '/data-dictionary': '           A A A A A A',
  '/price-check': '               A A A A S N',
  '/price-check/results': '       A A R A S N',
  '/member-recommendations': '    A A R A S A',
  '/provider-cost-transparency/:npi': 'A A R A S A',
  '/atlas-search': '              A A A R S N',
  '/atlas-results': '             A A A R S N',
  '/care-connect-search': '       A A A R S N',
  '/care-connect-results': '      A A A R S N',
  '/atlas/generic': '             A A A A A A',
  '/atlas/generic/results': '     A A A A A A',
  '/nova-search': '               R A R R S N',
  '/nova-results': '              R A R R S N',
  '/user-settings': '             A A A A S N',
  '/api-keys': '                  A A R R S N',
  '/team-management': '           A A R R S N',
  '/citrus-admin': '              R A R R S N',
  '/company/:companyId/users': '  R A R R S N',
  '/ai-hub': '                    A A A R S N',
  '/not-authorized': '            A A A A A A',
}

const LINK_ROUTES = ['/member-recommendations', '/provider-cost-transparency/']

function concrete(path: string): string {
  return path.replace(':npi', '1234567893').replace(':companyId', '3')
}

function contextFor(column: Column, pathname: string, products: AccessContext['products'] = [...PRODUCT_GROUPS]): AccessContext {
  if (column === 'guest') return { pathname, authenticated: false, role: 'guest', guest: { status: 'none' }, products: [] }
  if (column === 'link') {
    return { pathname, authenticated: false, role: 'member', guest: { status: 'active', clientRoutes: LINK_ROUTES }, products: [] }
  }
  return { pathname, authenticated: true, role: column, guest: { status: 'none' }, products }
}

function code(outcome: AccessOutcome): Code | 'pending' | 'invalid-link' {
  switch (outcome.type) {
    case 'allow':
      return 'A'
    case 'role-denied':
      return 'R'
    case 'product-denied':
      return 'P'
    case 'redirect':
      if (outcome.reason === 'sign-in') return 'S'
      if (outcome.reason === 'not-authorized') return 'N'
      return 'H'
    default:
      return outcome.type
  }
}

describe('route guard matrix (every route × every role)', () => {
  it('covers every CLIENT_ROUTES entry', () => {
    expect(Object.keys(MATRIX).sort()).toEqual(CLIENT_ROUTES.map((route) => route.path).sort())
  })

  const cases = CLIENT_ROUTES.flatMap((route) => {
    const expected = MATRIX[route.path].trim().split(/\s+/) as Code[]
    return COLUMNS.map((column, index) => [route.path, column, expected[index] as Code, route] as const)
  })

  it.each(cases)('%s as %s → %s', (_path, column, expected, route) => {
    const outcome = evaluateAccess(route, contextFor(column, concrete(route.path)))
    expect(code(outcome)).toBe(expected)
  })
})

describe('route guard details', () => {
  const byPath = (path: ClientRoutePath) => {
    const route = CLIENT_ROUTES.find((candidate) => candidate.path === path)
    if (!route) throw new Error(path)
    return route
  }

  it('remembers the origin (path and query) when redirecting to /sign-in', () => {
    const outcome = evaluateAccess(byPath('/atlas-search'), { ...contextFor('guest', '/atlas-search'), search: '?view=map' })
    expect(outcome).toEqual({ type: 'redirect', to: '/sign-in', reason: 'sign-in', from: '/atlas-search?view=map' })
  })

  it('names the role in Access Restricted and the product in Product Access Required', () => {
    expect(evaluateAccess(byPath('/citrus-admin'), contextFor('admin', '/citrus-admin'))).toEqual({ type: 'role-denied', role: 'admin' })
    const noProducts = contextFor('admin', '/atlas-search', [])
    expect(evaluateAccess(byPath('/atlas-search'), noProducts)).toEqual({ type: 'product-denied', product: 'ATLAS' })
    expect(evaluateAccess(byPath('/care-connect-search'), noProducts)).toEqual({ type: 'product-denied', product: 'CARE_SELECT' })
    expect(evaluateAccess(byPath('/nova-search'), contextFor('citrus', '/nova-search', ['ATLAS']))).toEqual({
      type: 'product-denied',
      product: 'NOVA',
    })
  })

  it.each(['admin', 'citrus', 'user'] as const)('denies product routes to %s when the company lacks the product', (role) => {
    for (const route of CLIENT_ROUTES) {
      if (!('product' in route) || !(route.roles as readonly SessionRole[]).includes(role)) continue
      expect(code(evaluateAccess(route, contextFor(role, concrete(route.path), [])))).toBe('P')
    }
  })

  it('checks role before product, and product before the guest route check', () => {
    // a shared link carrying role user: allowed by role on Atlas, but guests hold no products
    const userLink: AccessContext = {
      pathname: '/atlas-search',
      authenticated: false,
      role: 'user',
      guest: { status: 'active', clientRoutes: ['/atlas-search'] },
      products: [],
    }
    expect(code(evaluateAccess(byPath('/atlas-search'), userLink))).toBe('P')
    // a member without products is refused by role first
    expect(code(evaluateAccess(byPath('/atlas-search'), contextFor('member', '/atlas-search', [])))).toBe('R')
  })

  it('waits while the products call or the link validation is pending', () => {
    expect(evaluateAccess(byPath('/atlas-search'), contextFor('admin', '/atlas-search', 'loading'))).toEqual({ type: 'pending' })
    expect(evaluateAccess(byPath('/api-keys'), contextFor('admin', '/api-keys', 'loading'))).toEqual({ type: 'allow' })
    const validating: AccessContext = {
      pathname: '/member-recommendations',
      authenticated: false,
      role: 'guest',
      guest: { status: 'validating' },
      products: [],
    }
    expect(evaluateAccess(byPath('/member-recommendations'), validating)).toEqual({ type: 'pending' })
  })

  it("shows 'Invalid or Expired Link' for a rejected shareable link", () => {
    const invalid: AccessContext = {
      pathname: '/member-recommendations',
      authenticated: false,
      role: 'guest',
      guest: { status: 'invalid' },
      products: [],
    }
    expect(evaluateAccess(byPath('/member-recommendations'), invalid)).toEqual({ type: 'invalid-link' })
  })

  it('a login token wins over a guest session', () => {
    const both: AccessContext = {
      pathname: '/apps',
      authenticated: true,
      role: 'admin',
      guest: { status: 'active', clientRoutes: [] },
      products: [],
    }
    expect(code(evaluateAccess(byPath('/apps'), both))).toBe('A')
  })

  it('sends signed-in users from sign-in/sign-up to their home, or the remembered origin', () => {
    expect(evaluateAccess(byPath('/sign-in'), contextFor('member', '/sign-in'))).toMatchObject({ to: '/price-check' })
    expect(evaluateAccess(byPath('/sign-up'), contextFor('user', '/sign-up'))).toMatchObject({ to: '/apps' })
    expect(evaluateAccess(byPath('/sign-in'), { ...contextFor('admin', '/sign-in'), origin: '/api-keys' })).toMatchObject({
      to: '/api-keys',
    })
  })

  it('postLoginPath ignores unsafe or account-page origins', () => {
    expect(postLoginPath('member', null)).toBe('/price-check')
    expect(postLoginPath('admin', undefined)).toBe('/apps')
    expect(postLoginPath('admin', '//evil.example.com')).toBe('/apps')
    expect(postLoginPath('admin', 'https://evil.example.com')).toBe('/apps')
    expect(postLoginPath('admin', '/sign-in')).toBe('/apps')
    expect(postLoginPath('admin', '/team-management?tab=users')).toBe('/team-management?tab=users')
  })

  it('postLoginPath never sends a role to a page it may not open: it falls back to the role home', () => {
    expect(postLoginPath('member', '/apps')).toBe('/price-check')
    expect(postLoginPath('member', '/api-keys')).toBe('/price-check')
    expect(postLoginPath('user', '/citrus-admin')).toBe('/apps')
    expect(postLoginPath('admin', '/nova-search')).toBe('/apps')
    expect(postLoginPath('admin', '/no/such/page')).toBe('/apps')
    expect(postLoginPath('admin', '/not-authorized')).toBe('/apps')
    expect(postLoginPath('admin', '/\\evil.example.com')).toBe('/apps')
    expect(postLoginPath('member', '/member-recommendations?zip_code=98101')).toBe('/member-recommendations?zip_code=98101')
    expect(postLoginPath('citrus', '/company/3/users')).toBe('/company/3/users')
  })

  it('a signed-in visit to /sign-in with a remembered page the role may not open goes home', () => {
    expect(evaluateAccess(byPath('/sign-in'), { ...contextFor('member', '/sign-in'), origin: '/apps' })).toMatchObject({
      to: '/price-check',
    })
  })

  it('canOpenPath agrees with the guard for every route, role and product set', () => {
    for (const route of CLIENT_ROUTES) {
      for (const role of ['admin', 'citrus', 'user', 'member'] as const) {
        for (const products of [[...PRODUCT_GROUPS], []]) {
          const path = concrete(route.path)
          const allowed = code(evaluateAccess(route, contextFor(role, path, products))) === 'A'
          expect(canOpenPath(`${path}?q=1`, role, products), `${path} as ${role}`).toBe(allowed)
        }
      }
    }
    expect(canOpenPath('/no/such/page', 'citrus', [...PRODUCT_GROUPS])).toBe(false)
  })
})
