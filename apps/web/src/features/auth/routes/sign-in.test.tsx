import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { malformed, mockApi, reply } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

function fill(email: string, password: string) {
  fireEvent.change(screen.getByLabelText(/Email/), { target: { value: email } })
  fireEvent.change(screen.getByLabelText(/Password/), { target: { value: password } })
}

const submit = () => screen.getByRole('button', { name: 'Sign In' })

describe('Sign In page', () => {
  it('has the Sign In heading, the split layout links and the Powered by line', async () => {
    mockApi()
    renderApp('/sign-in')
    expect(await screen.findByRole('heading', { name: 'Sign In' })).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Forget password?' }).getAttribute('href')).toBe('/password-reset-email')
    expect(screen.getByRole('link', { name: 'Create an Account' }).getAttribute('href')).toBe('/sign-up')
    expect(screen.getByRole('link', { name: 'Terms of Use' })).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Sign-up for a Demo' })).toBeTruthy()
    expect(screen.getAllByText(/Powered by/).length).toBeGreaterThan(0)
    expect(screen.getByTestId('auth-brand-panel')).toBeTruthy()
  })

  it('keeps submit disabled until both fields are filled', async () => {
    mockApi()
    renderApp('/sign-in')
    await screen.findByRole('heading', { name: 'Sign In' })
    expect(submit().hasAttribute('disabled')).toBe(true)
    fill('ada@example.com', '')
    expect(submit().hasAttribute('disabled')).toBe(true)
    fill('', 'secret')
    expect(submit().hasAttribute('disabled')).toBe(true)
    fill('ada@example.com', 'secret')
    expect(submit().hasAttribute('disabled')).toBe(false)
  })

  it("shows 'Email is required' and 'Password is required' on leaving empty fields", async () => {
    mockApi()
    renderApp('/sign-in')
    await screen.findByRole('heading', { name: 'Sign In' })
    fireEvent.blur(screen.getByLabelText(/Email/))
    fireEvent.blur(screen.getByLabelText(/Password/))
    expect(screen.getByText('Email is required')).toBeTruthy()
    expect(screen.getByText('Password is required')).toBeTruthy()
  })

  it("shows 'Please enter a valid email address' and does not call the server", async () => {
    const api = mockApi()
    renderApp('/sign-in')
    await screen.findByRole('heading', { name: 'Sign In' })
    fill('not-an-email', 'secret')
    fireEvent.click(submit())
    expect(await screen.findByText('Please enter a valid email address')).toBeTruthy()
    expect(api.callsTo('POST /users/login')).toHaveLength(0)
  })

  it('stores the token under jwtToken and sends a member to /price-check', async () => {
    const token = loginToken({ role: 'member' })
    const api = mockApi({ 'POST /users/login': { token } })
    const { router } = renderApp('/sign-in')
    await screen.findByRole('heading', { name: 'Sign In' })
    fill(' maria@example.com ', 'Secret#123')
    fireEvent.click(submit())
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/price-check'))
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBe(token)
    expect(api.callsTo('POST /users/login')[0]?.body).toEqual({ email: 'maria@example.com', password: 'Secret#123' })
    await vi.waitFor(() =>
      expect(api.callsTo('POST /analytics/events').map((call) => call.body)).toContainEqual({
        events: [{ name: 'user_logged_in', properties: { role: 'member' } }],
      }),
    )
    // the login flag is consumed once
    expect(localStorage.getItem('loginEvent')).toBeNull()
  })

  it.each(['admin', 'user', 'citrus'])('sends role %s to /apps', async (role) => {
    mockApi({ 'POST /users/login': { token: loginToken({ role }) }, 'GET /company/products': { product_groups: [] } })
    const { router } = renderApp('/sign-in')
    await screen.findByRole('heading', { name: 'Sign In' })
    fill('ada@example.com', 'Secret#123')
    fireEvent.click(submit())
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/apps'))
  })

  it('returns to the page the guard remembered', async () => {
    mockApi({ 'POST /users/login': { token: loginToken({ role: 'admin' }) }, 'GET /company/products': { product_groups: [] } })
    const { router } = renderApp('/team-management')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'))
    fill('ada@example.com', 'Secret#123')
    fireEvent.click(submit())
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/team-management'))
  })

  it('shows the server message as is', async () => {
    mockApi({ 'POST /users/login': reply(401, { message: 'Invalid email or password', code: 'UNAUTHORIZED', status: 401 }) })
    renderApp('/sign-in')
    await screen.findByRole('heading', { name: 'Sign In' })
    fill('ada@example.com', 'wrong')
    fireEvent.click(submit())
    expect(await screen.findByText('Invalid email or password')).toBeTruthy()
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull()
  })

  it("shows 'Authentication failed' when the server gives no message", async () => {
    mockApi({ 'POST /users/login': malformed({}, 500) })
    renderApp('/sign-in')
    await screen.findByRole('heading', { name: 'Sign In' })
    fill('ada@example.com', 'wrong')
    fireEvent.click(submit())
    expect(await screen.findByText('Authentication failed')).toBeTruthy()
  })

  it("shows 'No token received' when the response has no token", async () => {
    mockApi({ 'POST /users/login': malformed({}) })
    renderApp('/sign-in')
    await screen.findByRole('heading', { name: 'Sign In' })
    fill('ada@example.com', 'Secret#123')
    fireEvent.click(submit())
    expect(await screen.findByText('No token received')).toBeTruthy()
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull()
  })

  it('sends a signed-in user away from /sign-in', async () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'member' }))
    mockApi()
    const { router } = renderApp('/sign-in')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/price-check'))
  })
})
