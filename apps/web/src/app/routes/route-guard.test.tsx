import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { getActiveShareableToken } from '../../lib/guest-token-store'
import { mockApi, reply } from '../../test/mock-api'
import { renderApp } from '../../test/render'
import { loginToken, shareableToken } from '../../test/tokens'
import { NPI, providerCostBody } from '../../test/provider-cost-fixture'

const validation = {
  url_type: 'private',
  role: 'member',
  requires_phone_verification: true,
  requires_email_verification: false,
  requires_account_creation: false,
  authorized_user_ids: null,
  is_expired: false,
  client_routes: ['/member-recommendations', '/provider-cost-transparency'],
}

describe('full-screen denials (spec 1 §2, §8)', () => {
  it("'Access Restricted' names the role, with Go Back and Go to Dashboard", async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
    mockApi({ 'GET /company/products': { product_groups: [] } })
    renderApp('/citrus-admin')
    expect(await screen.findByText('Access Restricted')).toBeTruthy()
    expect(
      screen.getByText(
        "Your current role (user) doesn't have permission to access this area. Please contact your administrator if you believe this is an error.",
      ),
    ).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Go Back' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Go to Dashboard' })).toBeTruthy()
  })

  it("'Product Access Required' names the product, with Contact Support and Go Back", async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'admin' }))
    mockApi({ 'GET /company/products': { product_groups: ['ATLAS'] } })
    renderApp('/care-connect-search')
    expect(await screen.findByText('Product Access Required')).toBeTruthy()
    expect(
      screen.getByText(
        "You don't have access to Care Connect. Please contact your administrator to request access or upgrade your subscription.",
      ),
    ).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Contact Support' }).getAttribute('href')).toMatch(/^mailto:/)
    expect(screen.getByRole('button', { name: 'Go Back' })).toBeTruthy()
  })

  it('sends an unauthenticated visitor to /sign-in, remembering the origin', async () => {
    mockApi()
    const { router } = renderApp('/atlas-search?view=map')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'))
    expect(router.state.location.state).toEqual({ from: '/atlas-search?view=map' })
  })

  it('a member who signs in from a remembered /apps lands on /price-check, not on Access Restricted', async () => {
    mockApi({ 'POST /users/login': { token: loginToken({ role: 'member' }) }, 'GET /company/products': { product_groups: [] } })
    const { router } = renderApp('/apps')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'))
    expect(router.state.location.state).toEqual({ from: '/apps' })
    fireEvent.change(await screen.findByLabelText(/Email/), { target: { value: 'maria@example.com' } })
    fireEvent.change(screen.getByLabelText(/Password/), { target: { value: 'Secret#123' } })
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/price-check'))
    expect(screen.queryByText('Access Restricted')).toBeNull()
  })

  it("Access Restricted's Go to Dashboard goes to the role's home (/price-check for a member)", async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    mockApi({ 'GET /company/products': { product_groups: [] } })
    const { router } = renderApp('/api-keys')
    expect(await screen.findByText('Access Restricted')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Go to Dashboard' }))
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/price-check'))
  })

  it('treats an expired login token as signed out', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ exp: Math.floor(Date.now() / 1000) - 5 }))
    mockApi()
    const { router } = renderApp('/apps')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'))
  })
})

// /member-recommendations is a real page now (issue 11): a page still coming soon shows the guest shell.
describe('shareable-link guest sessions (spec 1 §4)', () => {
  it('validates ?token= and lets the guest visit a path in client_routes; the API client then holds the token', async () => {
    const token = shareableToken()
    const api = mockApi({
      'GET /shareable-url/validate-shareable-link': validation,
      [`GET /cost-transparency/provider/${NPI}`]: providerCostBody,
    })
    renderApp(`/provider-cost-transparency/${NPI}?token=${token}`)
    expect(await screen.findByRole('heading', { name: providerCostBody.provider.full_name })).toBeTruthy()
    const call = api.callsTo('GET /shareable-url/validate-shareable-link')[0]
    expect(call?.query.get('token')).toBe(token)
    expect(getActiveShareableToken()).toBe(token)
  })

  it('redirects the guest to /not-authorized outside client_routes', async () => {
    const token = shareableToken()
    mockApi({ 'GET /shareable-url/validate-shareable-link': validation, [`GET /cost-transparency/provider/${NPI}`]: providerCostBody })
    const { router } = renderApp(`/price-check?token=${token}`)
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/not-authorized'))
  })

  it('offers the guest no Back to Apps, no Apps breadcrumb and no home logo link: only what the link allows', async () => {
    mockApi({ 'GET /shareable-url/validate-shareable-link': validation, [`GET /cost-transparency/provider/${NPI}`]: providerCostBody })
    renderApp(`/provider-cost-transparency/${NPI}?token=${shareableToken()}`)
    expect(await screen.findByRole('heading', { name: providerCostBody.provider.full_name })).toBeTruthy()
    expect(screen.queryByRole('link', { name: 'Back to Apps' })).toBeNull()
    expect(screen.queryByRole('link', { name: 'Back Home' })).toBeNull()
    expect(screen.queryByRole('link', { name: 'Apps' })).toBeNull()
    const crumbs = screen.getByRole('navigation', { name: 'Breadcrumb' })
    expect(within(crumbs).queryByText('Apps')).toBeNull()
    expect(within(crumbs).getByText('Provider Cost Transparency')).toBeTruthy()
    // every link left on the page stays inside the link's client_routes or is a public account page
    const hrefs = screen.getAllByRole('link').map((link) => link.getAttribute('href') ?? '')
    for (const href of hrefs)
      expect(href, href).toMatch(/^(\/member-recommendations|\/provider-cost-transparency|\/sign-in|\/sign-up|mailto:)/)
  })

  it('the not-found page offers a guest Go Back instead of Back Home', async () => {
    mockApi({ 'GET /shareable-url/validate-shareable-link': validation, [`GET /cost-transparency/provider/${NPI}`]: providerCostBody })
    const { router } = renderApp(`/provider-cost-transparency/${NPI}?token=${shareableToken()}`)
    expect(await screen.findByRole('heading', { name: providerCostBody.provider.full_name })).toBeTruthy()
    await router.navigate('/no/such/page')
    expect(await screen.findByText('404')).toBeTruthy()
    expect(screen.queryByRole('link', { name: 'Back Home' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Go Back' })).toBeTruthy()
  })

  it("shows 'Invalid or Expired Link' with Go to Sign In for a rejected link", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    mockApi({ 'GET /shareable-url/validate-shareable-link': { ...validation, is_expired: true } })
    const { router } = renderApp(`/member-recommendations?token=${shareableToken()}`)
    expect(await screen.findByText('Invalid or Expired Link')).toBeTruthy()
    expect(
      screen.getByText(
        'This shared link is no longer valid or has expired. Please request a new link from the person who originally shared it with you.',
      ),
    ).toBeTruthy()
    expect(warn).toHaveBeenCalled()
    fireEvent.click(screen.getByRole('button', { name: 'Go to Sign In' }))
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'))
  })

  it('rejects a link the server does not know', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    mockApi({
      'GET /shareable-url/validate-shareable-link': reply(401, {
        message: 'This shared link is no longer valid or has expired.',
        code: 'UNAUTHORIZED',
        status: 401,
      }),
    })
    renderApp(`/member-recommendations?token=${shareableToken()}`)
    expect(await screen.findByText('Invalid or Expired Link')).toBeTruthy()
  })
})
