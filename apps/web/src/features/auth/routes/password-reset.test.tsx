import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { malformed, mockApi, reply } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

describe('Request reset e-mail', () => {
  const email = () => screen.getByLabelText(/^Email/)
  const send = () => fireEvent.click(screen.getByRole('button', { name: 'Send Reset Link' }))

  it("validates: 'Email is required', 'Please enter a valid email address'", async () => {
    const api = mockApi()
    renderApp('/password-reset-email')
    await screen.findByRole('heading', { name: 'Reset Password' })
    send()
    expect(screen.getByText('Email is required')).toBeTruthy()
    fireEvent.change(email(), { target: { value: 'nope' } })
    expect(screen.getByText('Please enter a valid email address')).toBeTruthy()
    expect(api.callsTo('POST /users/password-reset-email')).toHaveLength(0)
  })

  it('shows the sent state when the response has message_id', async () => {
    const api = mockApi({ 'POST /users/password-reset-email': { message_id: 'm-1' } })
    renderApp('/password-reset-email')
    await screen.findByRole('heading', { name: 'Reset Password' })
    fireEvent.change(email(), { target: { value: 'ada@example.com' } })
    send()
    expect(await screen.findByText('Password Reset Email Sent!')).toBeTruthy()
    expect(screen.getByText('Please check your email for a link to reset your password.')).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Back to Sign In' }).getAttribute('href')).toBe('/sign-in')
    expect(api.callsTo('POST /users/password-reset-email')[0]?.body).toEqual({ email: 'ada@example.com' })
  })

  it("is not successful without message_id: 'Reset failed' / 'Password reset was not successful. Please try again.'", async () => {
    mockApi({ 'POST /users/password-reset-email': malformed({}) })
    renderApp('/password-reset-email')
    await screen.findByRole('heading', { name: 'Reset Password' })
    fireEvent.change(email(), { target: { value: 'ada@example.com' } })
    send()
    expect(await screen.findByText('Password reset was not successful. Please try again.')).toBeTruthy()
    expect(screen.getByText('Reset failed')).toBeTruthy()
  })

  it("shows 'Failed to reset password. Please try again.' on an error without message", async () => {
    mockApi({ 'POST /users/password-reset-email': malformed({}, 500) })
    renderApp('/password-reset-email')
    await screen.findByRole('heading', { name: 'Reset Password' })
    fireEvent.change(email(), { target: { value: 'ada@example.com' } })
    send()
    expect(await screen.findByText('Failed to reset password. Please try again.')).toBeTruthy()
  })
})

describe('Set new password', () => {
  const password = () => screen.getByLabelText(/^New password/)
  const reset = () => fireEvent.click(screen.getByRole('button', { name: 'Reset Password' }))

  it("redirects to /password-reset-email with 'No Token Found' without a token", async () => {
    mockApi()
    const { router } = renderApp('/password-reset')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/password-reset-email'))
    expect(await screen.findByText('No Token Found')).toBeTruthy()
  })

  it.each([
    ['admin', '/apps'],
    ['member', '/price-check'],
  ])("sends a signed-in %s to the role's home %s (never to a page the role may not open)", async (role, home) => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role }))
    mockApi({ 'GET /company/products': { product_groups: [] } })
    const { router } = renderApp('/password-reset?token=t')
    await vi.waitFor(() => expect(router.state.location.pathname).toBe(home))
  })

  it('applies the strength rule and messages', async () => {
    mockApi()
    renderApp('/password-reset?token=t')
    await screen.findByRole('heading', { name: 'Set New Password' })
    reset()
    expect(screen.getByText('Password is required')).toBeTruthy()
    fireEvent.change(password(), { target: { value: 'abcdef12' } })
    expect(screen.getByText("Your password doesn't meet the requirements")).toBeTruthy()
  })

  it('posts new_password and temp_jwt_token and goes to /sign-in', async () => {
    const api = mockApi({ 'POST /users/password-reset': { message_id: 'm-2' } })
    const { router } = renderApp('/password-reset?token=reset-token')
    await screen.findByRole('heading', { name: 'Set New Password' })
    fireEvent.change(password(), { target: { value: 'Citrus#2024' } })
    reset()
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/sign-in'))
    expect(api.callsTo('POST /users/password-reset')[0]?.body).toEqual({ new_password: 'Citrus#2024', temp_jwt_token: 'reset-token' })
  })

  it('shows the server message, else the documented fallbacks', async () => {
    mockApi({ 'POST /users/password-reset': reply(400, { message: 'Reset link expired', code: 'BAD_REQUEST', status: 400 }) })
    renderApp('/password-reset?token=t')
    await screen.findByRole('heading', { name: 'Set New Password' })
    fireEvent.change(password(), { target: { value: 'Citrus#2024' } })
    reset()
    expect(await screen.findByText('Reset link expired')).toBeTruthy()
    expect(screen.getByText('Reset failed')).toBeTruthy()
  })

  it("shows 'Password reset was not successful. Please try again.' without message_id", async () => {
    mockApi({ 'POST /users/password-reset': malformed({}) })
    renderApp('/password-reset?token=t')
    await screen.findByRole('heading', { name: 'Set New Password' })
    fireEvent.change(password(), { target: { value: 'Citrus#2024' } })
    reset()
    expect(await screen.findByText('Password reset was not successful. Please try again.')).toBeTruthy()
  })
})
