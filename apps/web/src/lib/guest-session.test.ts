import { describe, expect, it, vi } from 'vitest'
import { shareableToken } from '../test/tokens'
import { getActiveShareableToken, readPersistedShareableToken, SHAREABLE_TOKEN_STORAGE_KEY } from './guest-token-store'
import {
  checkShareableToken,
  compareShareableClaims,
  getGuestSession,
  isGuestPathAllowed,
  resumeGuestSession,
  startGuestSession,
  validateShareableToken,
  type ShareableLinkValidation,
} from './guest-session'

const server = (overrides: Partial<ShareableLinkValidation> = {}): ShareableLinkValidation => ({
  url_type: 'private',
  role: 'member',
  requires_phone_verification: true,
  requires_email_verification: false,
  requires_account_creation: false,
  authorized_user_ids: null,
  is_expired: false,
  client_routes: ['/member-recommendations'],
  ...overrides,
})

describe('shareable token client check (spec 1 §5)', () => {
  it('rejects a missing token, a token without exp, and an expired token', () => {
    expect(checkShareableToken(null).ok).toBe(false)
    expect(checkShareableToken('not-a-jwt').ok).toBe(false)
    expect(checkShareableToken(shareableToken({ exp: undefined })).ok).toBe(false)
    expect(checkShareableToken(shareableToken({ exp: Math.floor(Date.now() / 1000) - 1 })).ok).toBe(false)
  })

  it('accepts a token with a future exp and reads ut, r, ph, em', () => {
    const result = checkShareableToken(shareableToken({ em: 'm@example.com' }))
    expect(result).toMatchObject({ ok: true, value: { ut: 'private', r: 'member', ph: '+12065550100', em: 'm@example.com' } })
  })
})

describe('claims comparison with the server', () => {
  const claims = { exp: 1, ut: 'private', r: 'member', ph: '+12065550100' }

  it('agrees when url type, role, verification claims and expiry match', () => {
    expect(compareShareableClaims(claims, server()).ok).toBe(true)
    expect(compareShareableClaims({ ...claims, r: 'MEMBER' }, server()).ok).toBe(true)
    expect(compareShareableClaims({ ...claims, r: undefined }, server()).ok).toBe(true)
    expect(compareShareableClaims(claims, server({ role: null })).ok).toBe(true)
  })

  it('disagrees on url type, role, missing ph/em, or server expiry', () => {
    expect(compareShareableClaims(claims, server({ url_type: 'public' })).ok).toBe(false)
    expect(compareShareableClaims(claims, server({ role: 'admin' })).ok).toBe(false)
    expect(compareShareableClaims({ ...claims, ph: undefined }, server()).ok).toBe(false)
    expect(compareShareableClaims(claims, server({ requires_email_verification: true })).ok).toBe(false)
    expect(compareShareableClaims(claims, server({ is_expired: true })).ok).toBe(false)
  })
})

describe('guest path rule', () => {
  it('matches by prefix ignoring trailing slashes', () => {
    expect(isGuestPathAllowed('/member-recommendations', ['/member-recommendations/'])).toBe(true)
    expect(isGuestPathAllowed('/member-recommendations/', ['/member-recommendations'])).toBe(true)
    expect(isGuestPathAllowed('/provider-cost-transparency/1234567893', ['/provider-cost-transparency'])).toBe(true)
    expect(isGuestPathAllowed('/price-check/results', ['/price-check'])).toBe(true)
  })

  it('refuses other paths', () => {
    expect(isGuestPathAllowed('/apps', ['/member-recommendations'])).toBe(false)
    expect(isGuestPathAllowed('/price-checkout', ['/price-check'])).toBe(false)
    expect(isGuestPathAllowed('/anything', [])).toBe(false)
  })
})

describe('guest session', () => {
  it('ignores an invalid token with a console warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const fetcher = vi.fn(async () => server())
    expect(await validateShareableToken(shareableToken({ exp: undefined }), { fetcher })).toBeNull()
    expect(fetcher).not.toHaveBeenCalled()
    expect(await validateShareableToken(shareableToken({ ut: 'public' }), { fetcher })).toBeNull()
    expect(warn).toHaveBeenCalledTimes(2)
  })

  it('becomes an active guest session with the server payload and makes the token available to the API client', async () => {
    const token = shareableToken()
    const state = await startGuestSession(token, { fetcher: async () => server() })
    expect(state).toMatchObject({ status: 'active', role: 'member', payload: { client_routes: ['/member-recommendations'] } })
    expect(getGuestSession()).toBe(state)
    expect(getActiveShareableToken()).toBe(token)
    expect(sessionStorage.getItem('shareableToken')).toBe(token)
  })

  it('is invalid when the server check fails', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const state = await startGuestSession(shareableToken(), {
      fetcher: async () => {
        throw new Error('Not found')
      },
    })
    expect(state.status).toBe('invalid')
    expect(getActiveShareableToken()).toBeNull()
  })

  it("keeps the tab's stored token while a page load validates it again, so a page load meanwhile finds it (issue 33)", async () => {
    const token = shareableToken()
    sessionStorage.setItem(SHAREABLE_TOKEN_STORAGE_KEY, token)
    let answer: (value: ShareableLinkValidation) => void = () => {}
    resumeGuestSession({ fetcher: () => new Promise((resolve) => (answer = resolve)) })
    expect(getGuestSession()).toMatchObject({ status: 'validating', token })
    // not sent before it is validated, but still there for the next page load
    expect(getActiveShareableToken()).toBeNull()
    expect(readPersistedShareableToken()).toBe(token)
    answer(server())
    await vi.waitFor(() => expect(getGuestSession().status).toBe('active'))
    expect(getActiveShareableToken()).toBe(token)
    expect(readPersistedShareableToken()).toBe(token)
  })
})
