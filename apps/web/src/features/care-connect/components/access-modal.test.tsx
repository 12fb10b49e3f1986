import { fireEvent, screen, waitFor } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import type { ShareableLinkValidation } from '../../../lib/guest-session'
import { mockApi } from '../../../test/mock-api'
import { renderWithRouter } from '../../../test/render'
import { loginToken, shareableToken } from '../../../test/tokens'
import { AccessModal } from './access-modal'

const VERIFICATION_ID = '0b0e7c1e-7a4f-4a53-9a55-2f4c8d0f3a11'

/** The answers of a new member's e-mail step: not yet a user, a code sent. */
const codeSent = () => ({
  'POST /users/verify': { exists: false },
  'POST /users/verification-code': {
    verification_id: VERIFICATION_ID,
    channel: 'email',
    expires_at: new Date(Date.now() + 600_000).toISOString(),
    message_id: 'm-1',
  },
})

function linkOf(overrides: Partial<ShareableLinkValidation> = {}): ShareableLinkValidation {
  return {
    url_type: 'private',
    role: 'member',
    requires_phone_verification: false,
    requires_email_verification: true,
    requires_account_creation: false,
    authorized_user_ids: null,
    is_expired: false,
    client_routes: ['/member-recommendations'],
    ...overrides,
  }
}

function renderModal(link: ShareableLinkValidation, onGranted = vi.fn()) {
  const view = renderWithRouter(<AccessModal token={shareableToken()} link={link} onGranted={onGranted} />)
  return { ...view, onGranted }
}

const dialog = () => screen.getByRole('dialog')
const closeButton = () => document.querySelector('.mantine-Modal-close')
/** The error text a field announces (aria-describedby), or null. */
function fieldError(label: string): string | null {
  const id = screen.getByLabelText(label).getAttribute('aria-describedby')
  return id ? (document.getElementById(id)?.textContent ?? null) : null
}
const pressEscape = () => fireEvent.keyDown(window, { key: 'Escape', code: 'Escape' })

/** Verify Access with an e-mail the server knows: the Welcome back! sign-in form. */
async function openLoginForm() {
  const api = mockApi({ 'POST /users/verify': { exists: true }, 'POST /users/login': { token: loginToken({ sub: '42', role: 'member' }) } })
  const view = renderModal(linkOf())
  fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'member@example.com' } })
  fireEvent.click(screen.getByRole('button', { name: 'Verify Access' }))
  expect(await screen.findByText('Welcome back!')).toBeTruthy()
  return { api, ...view }
}

describe('AccessModal: the Welcome back! sign-in form (spec 3 §5, §8)', () => {
  it("shows 'Email is required' and 'Password is required' on the fields, with the form-level message, and signs no one in", async () => {
    const { api } = await openLoginForm()
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: '' } })
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Email is required')).toBeTruthy()
    expect(screen.getByText('Password is required')).toBeTruthy()
    expect(screen.getByText('Email and password are required')).toBeTruthy()
    expect(fieldError('Email')).toBe('Email is required')
    expect(fieldError('Password')).toBe('Password is required')
    expect(api.callsTo('POST /users/login')).toHaveLength(0)
  })

  it("shows 'Password is required' on the password field when only the password is missing", async () => {
    const { api } = await openLoginForm()
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Password is required')).toBeTruthy()
    expect(screen.queryByText('Email is required')).toBeNull()
    expect(fieldError('Password')).toBe('Password is required')
    expect(api.callsTo('POST /users/login')).toHaveLength(0)
  })

  it("shows 'Please enter a valid email address' on the email field and does not call the server", async () => {
    const { api } = await openLoginForm()
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'not-an-email' } })
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Secret1' } })
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Please enter a valid email address')).toBeTruthy()
    expect(fieldError('Email')).toBe('Please enter a valid email address')
    expect(fieldError('Password')).toBeNull()
    expect(screen.queryByText('Email and password are required')).toBeNull()
    expect(api.callsTo('POST /users/login')).toHaveLength(0)
  })
  it('signs in with a valid e-mail and password and grants access', async () => {
    const { api, onGranted } = await openLoginForm()
    api.calls.length = 0
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Secret1' } })
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(onGranted).toHaveBeenCalledTimes(1))
    expect(api.callsTo('POST /users/login').map((call) => call.body)).toEqual([{ email: 'member@example.com', password: 'Secret1' }])
    expect(fieldError('Email')).toBeNull()
    expect(fieldError('Password')).toBeNull()
  })
})

describe('AccessModal: dismissal (spec 3 §4.2)', () => {
  it('has no close button and stays open on Escape on step 1 and on the sign-in form', async () => {
    const { onGranted } = await openLoginForm()
    expect(closeButton()).toBeNull()
    pressEscape()
    expect(dialog()).toBeTruthy()
    expect(screen.getByText('Welcome back!')).toBeTruthy()
    expect(onGranted).not.toHaveBeenCalled()
  })

  it('shows no close button that does nothing once past step 1 (code step)', async () => {
    mockApi(codeSent())
    const { onGranted } = renderModal(linkOf())
    expect(closeButton()).toBeNull()
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'member@example.com' } })
    fireEvent.click(screen.getByRole('button', { name: 'Verify Access' }))
    expect(await screen.findByText('Email Verification')).toBeTruthy()
    expect(closeButton()).toBeNull()
    pressEscape()
    expect(screen.getByText('Email Verification')).toBeTruthy()
    expect(onGranted).not.toHaveBeenCalled()
  })

  it('shows no close button on a link that only requires account creation', async () => {
    mockApi()
    const { onGranted } = renderModal(linkOf({ requires_email_verification: false, requires_account_creation: true }))
    expect(screen.getByRole('button', { name: 'Verify Access' })).toBeTruthy()
    expect(closeButton()).toBeNull()
    pressEscape()
    expect(dialog()).toBeTruthy()
    expect(onGranted).not.toHaveBeenCalled()
  })

  it('the public Welcome modal closes with its close button, which grants access', async () => {
    mockApi()
    const { onGranted } = renderModal(linkOf({ url_type: 'public', requires_email_verification: false }))
    expect(screen.getByText('You have been granted public access to this content')).toBeTruthy()
    const close = closeButton()
    expect(close).not.toBeNull()
    fireEvent.click(close as Element)
    await waitFor(() => expect(onGranted).toHaveBeenCalledTimes(1))
  })
})

describe('AccessModal: the verification code (the contract confirmVerificationCodeRequestSchema)', () => {
  it("keeps Verify disabled for an incomplete code and refuses one submitted with the contract's message, sending nothing; a 6-digit code is confirmed", async () => {
    const api = mockApi({
      ...codeSent(),
      'POST /users/verification-code/confirm': { token: shareableToken(), verified_channels: ['email'], complete: true },
    })
    const { onGranted } = renderModal(linkOf())
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'member@example.com' } })
    fireEvent.click(screen.getByRole('button', { name: 'Verify Access' }))
    expect(await screen.findByText('Email Verification')).toBeTruthy()
    const digits = document.querySelectorAll<HTMLInputElement>('.mantine-PinInput-input')
    expect(digits).toHaveLength(6)
    for (const [i, input] of [...digits].slice(0, 3).entries()) fireEvent.change(input, { target: { value: String(i + 1) } })
    const verify = screen.getByRole('button', { name: 'Verify' }) as HTMLButtonElement
    expect(verify.disabled).toBe(true)
    fireEvent.submit(verify.closest('form')!)
    expect((await screen.findByRole('alert')).textContent).toBe('Verification failed')
    expect(api.callsTo('POST /users/verification-code/confirm')).toHaveLength(0)

    // the rest of the code clears the message; Verify confirms it
    for (const [i, input] of [...digits].slice(3).entries()) fireEvent.change(input, { target: { value: String(i + 4) } })
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull())
    fireEvent.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(onGranted).toHaveBeenCalled())
    const [confirm] = api.callsTo('POST /users/verification-code/confirm')
    expect(confirm!.body).toEqual({ verification_id: VERIFICATION_ID, code: '123456' })
  })
})

describe('AccessModal: Create Account (spec 3 §5)', () => {
  it('checks the new password and its confirmation, keeps the messages until the next try, and creates no account', async () => {
    const api = mockApi({
      ...codeSent(),
      'POST /users/verification-code/confirm': { token: shareableToken(), verified_channels: ['email'], complete: true },
    })
    renderModal(linkOf({ requires_account_creation: true }))
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'member@example.com' } })
    fireEvent.click(screen.getByRole('button', { name: 'Verify Access' }))
    expect(await screen.findByText('Email Verification')).toBeTruthy()
    document
      .querySelectorAll<HTMLInputElement>('.mantine-PinInput-input')
      .forEach((input, i) => fireEvent.change(input, { target: { value: String(i + 1) } }))
    const verify = screen.getByRole('button', { name: 'Verify' }) as HTMLButtonElement
    await waitFor(() => expect(verify.disabled).toBe(false))
    fireEvent.click(verify)
    const create = await screen.findByRole('button', { name: 'Create Account' })
    fireEvent.click(create)
    expect(await screen.findByText('Password is required')).toBeTruthy()
    expect(fieldError('Confirm password')).toBe('Please confirm your password')
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'abcdef' } })
    expect(fieldError('Password')).toBe('Password is required')
    fireEvent.change(screen.getByLabelText('Confirm password'), { target: { value: 'Abcdef1' } })
    fireEvent.click(create)
    expect(await screen.findByText('Password must be at least 6 characters with a number, uppercase, or special character')).toBeTruthy()
    expect(fieldError('Confirm password')).toBe('Passwords do not match')
    expect(api.callsTo('POST /users/member-signup')).toHaveLength(0)
  })
})

describe('AccessModal: an invite (spec 3 §4.2, §6)', () => {
  it('takes a phone on the sign-up (optional unless verified) and sends it with the member sign-up', async () => {
    const api = mockApi({
      'POST /users/verification-code': {
        verification_id: VERIFICATION_ID,
        channel: 'email',
        expires_at: new Date(Date.now() + 600_000).toISOString(),
        message_id: 'm-1',
      },
      'POST /users/verification-code/confirm': { token: shareableToken(), verified_channels: ['email'], complete: true },
      'POST /users/member-signup': { jwt_token: loginToken({ sub: '77', role: 'member' }), user_id: 77 },
    })
    const { onGranted } = renderModal(linkOf({ url_type: 'invite', requires_email_verification: false }))
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'invitee@example.com' } })
    fireEvent.change(screen.getByLabelText('Phone number'), { target: { value: '206555' } })
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Abcdef1' } })
    fireEvent.change(screen.getByLabelText('Confirm password'), { target: { value: 'Abcdef1' } })
    fireEvent.click(screen.getByRole('button', { name: 'Sign Up' }))
    expect(await screen.findByText('Please enter a valid phone number')).toBeTruthy()
    expect(api.callsTo('POST /users/verification-code')).toHaveLength(0)
    fireEvent.change(screen.getByLabelText('Phone number'), { target: { value: '2065550142' } })
    fireEvent.click(screen.getByRole('button', { name: 'Sign Up' }))
    expect(await screen.findByText('Email Verification')).toBeTruthy()
    const digits = document.querySelectorAll<HTMLInputElement>('.mantine-PinInput-input')
    expect(digits).toHaveLength(6)
    digits.forEach((input, i) => fireEvent.change(input, { target: { value: String(i + 1) } }))
    const verify = screen.getByRole('button', { name: 'Verify' }) as HTMLButtonElement
    await waitFor(() => expect(verify.disabled).toBe(false))
    fireEvent.click(verify)
    await waitFor(() => expect(onGranted).toHaveBeenCalled())
    const [signup] = api.callsTo('POST /users/member-signup')
    expect((signup!.body as { phone_number: string | null }).phone_number).toMatch(/206.*555.*0142/)
  })
})
