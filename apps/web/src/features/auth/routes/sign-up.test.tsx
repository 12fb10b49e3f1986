import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { fireEvent, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { malformed, mockApi, reply } from '../../../test/mock-api'
import { renderApp } from '../../../test/render'
import { loginToken } from '../../../test/tokens'

const STRONG = 'Citrus#2024'

function fill(values: { email?: string; password?: string; key?: string }) {
  if (values.email !== undefined) fireEvent.change(screen.getByLabelText(/^Email/), { target: { value: values.email } })
  if (values.password !== undefined)
    fireEvent.change(screen.getByLabelText(/^Password/, { selector: 'input' }), { target: { value: values.password } })
  if (values.key !== undefined) fireEvent.change(screen.getByLabelText(/^Activation key/), { target: { value: values.key } })
}
const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Create Account' }))

describe('Sign Up page', () => {
  it('prefills the activation key from the query and shows the placeholder and hint', async () => {
    mockApi()
    renderApp('/sign-up?activation_key=abc123')
    expect(await screen.findByRole('heading', { name: 'Sign Up' })).toBeTruthy()
    expect((screen.getByLabelText(/^Activation key/) as HTMLInputElement).value).toBe('abc123')
    expect(screen.getByPlaceholderText('Minimum 8 characters')).toBeTruthy()
    expect(screen.getByText('Use 6+ characters with uppercase, number & symbol')).toBeTruthy()
  })

  it('rates the password Weak, Medium or Strong', async () => {
    mockApi()
    renderApp('/sign-up')
    await screen.findByRole('heading', { name: 'Sign Up' })
    const meter = () => screen.getByTestId('password-strength')
    fill({ password: 'abc' })
    expect(meter().textContent).toContain('Weak')
    fill({ password: 'abcDEF' })
    expect(meter().textContent).toContain('Medium')
    fill({ password: 'abcDE1!' })
    expect(meter().textContent).toContain('Strong')
  })

  it('shows the validation messages of spec 1 §5', async () => {
    const api = mockApi()
    renderApp('/sign-up')
    await screen.findByRole('heading', { name: 'Sign Up' })
    submit()
    expect(screen.getByText('email is not valid')).toBeTruthy()
    expect(screen.getByText('Password is required')).toBeTruthy()
    expect(screen.getByText('Activation key is required')).toBeTruthy()
    fill({ email: 'ada@example.com', password: 'abcDEF12', key: 'k' })
    expect(screen.getByText("Your password doesn't meet the requirements")).toBeTruthy()
    expect(api.callsTo('POST /users/user-signup')).toHaveLength(0)
  })

  it('creates the user, logs in, then goes to /apps', async () => {
    const token = loginToken({ role: 'user' })
    const api = mockApi({
      'POST /users/user-signup': { message: 'User created' },
      'POST /users/login': { token },
      'GET /company/products': { product_groups: [] },
    })
    const { router } = renderApp('/sign-up?activation_key=KEY')
    await screen.findByRole('heading', { name: 'Sign Up' })
    fill({ email: 'new@example.com', password: STRONG })
    submit()
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/apps'))
    expect(api.callsTo('POST /users/user-signup')[0]?.body).toEqual({ email: 'new@example.com', password: STRONG, activation_key: 'KEY' })
    expect(api.callsTo('POST /users/login')[0]?.body).toEqual({ email: 'new@example.com', password: STRONG })
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBe(token)
  })

  it('forwards the invitation token of the invitation link', async () => {
    const api = mockApi({
      'POST /users/user-signup': { message: 'User created' },
      'POST /users/login': { token: loginToken({ role: 'admin' }) },
      'GET /company/products': { product_groups: [] },
    })
    renderApp('/sign-up?activation_key=KEY&invitation=INVITE-TOKEN_123')
    await screen.findByRole('heading', { name: 'Sign Up' })
    fill({ email: 'invited@example.com', password: STRONG })
    submit()
    await vi.waitFor(() => expect(api.callsTo('POST /users/user-signup')).toHaveLength(1))
    expect(api.callsTo('POST /users/user-signup')[0]?.body).toEqual({
      email: 'invited@example.com',
      password: STRONG,
      activation_key: 'KEY',
      invitation_token: 'INVITE-TOKEN_123',
    })
  })

  it('shows the server message when the invitation link is no longer valid', async () => {
    const message =
      'This invitation link is invalid, has expired or was made for another e-mail address. Ask your administrator for a new invitation.'
    mockApi({
      'POST /users/user-signup': reply(400, {
        message,
        code: 'BAD_REQUEST',
        status: 400,
        errors: [{ path: 'body.invitation_token', message }],
      }),
    })
    renderApp('/sign-up?activation_key=KEY&invitation=used')
    await screen.findByRole('heading', { name: 'Sign Up' })
    fill({ email: 'invited@example.com', password: STRONG })
    submit()
    expect((await screen.findByText(message)).textContent).toBe(message)
  })

  it("shows 'Signup was not successful. Please try again.' without a message", async () => {
    mockApi({ 'POST /users/user-signup': malformed({}) })
    renderApp('/sign-up?activation_key=KEY')
    await screen.findByRole('heading', { name: 'Sign Up' })
    fill({ email: 'new@example.com', password: STRONG })
    submit()
    expect(await screen.findByText('Signup was not successful. Please try again.')).toBeTruthy()
  })

  it("shows 'Signup was not successful. Please try again.' when the login after sign-up fails", async () => {
    mockApi({
      'POST /users/user-signup': { message: 'ok' },
      'POST /users/login': reply(401, { message: 'Invalid', code: 'UNAUTHORIZED', status: 401 }),
    })
    renderApp('/sign-up?activation_key=KEY')
    await screen.findByRole('heading', { name: 'Sign Up' })
    fill({ email: 'new@example.com', password: STRONG })
    submit()
    expect(await screen.findByText('Signup was not successful. Please try again.')).toBeTruthy()
  })

  it('shows the server message as is', async () => {
    mockApi({ 'POST /users/user-signup': reply(409, { message: 'User already exists', code: 'CONFLICT', status: 409 }) })
    renderApp('/sign-up?activation_key=KEY')
    await screen.findByRole('heading', { name: 'Sign Up' })
    fill({ email: 'new@example.com', password: STRONG })
    submit()
    expect(await screen.findByText('User already exists')).toBeTruthy()
  })

  it("shows 'Failed to create user. Please try again.' when the server gives no message", async () => {
    mockApi({ 'POST /users/user-signup': malformed({}, 500) })
    renderApp('/sign-up?activation_key=KEY')
    await screen.findByRole('heading', { name: 'Sign Up' })
    fill({ email: 'new@example.com', password: STRONG })
    submit()
    expect(await screen.findByText('Failed to create user. Please try again.')).toBeTruthy()
  })
})
