import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { act, renderHook } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { loginToken, makeJwt } from '../test/tokens'
import { setAnalyticsTransport, type AnalyticsEvent } from './analytics'
import { consumeLoginEvent, getSession, login, logout, sessionFromToken, useSession } from './session'

describe('session (spec 1 §4)', () => {
  it('is signed out without a token', () => {
    expect(getSession()).toMatchObject({ authenticated: false, role: 'guest', user: null })
  })

  it('is authenticated with a stored, unexpired token and exposes the claims', () => {
    localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user', company_id: 9, company_name: 'Acme', phone_number: '+12065550100' }))
    expect(getSession()).toMatchObject({
      authenticated: true,
      role: 'user',
      user: { id: '42', email: 'ada@example.com', companyId: 9, companyName: 'Acme', phoneNumber: '+12065550100' },
    })
  })

  it('is not authenticated with an expired or malformed token', () => {
    expect(sessionFromToken(loginToken({ exp: Math.floor(Date.now() / 1000) - 10 })).authenticated).toBe(false)
    expect(sessionFromToken('garbage').authenticated).toBe(false)
    expect(sessionFromToken(makeJwt({ sub: '1', email: 'a@b.co', role: 'admin' })).authenticated).toBe(false)
  })

  it('records legacy_uppercase_role_detected once for a legacy role', () => {
    const events: AnalyticsEvent[] = []
    const restore = setAnalyticsTransport(async (batch) => events.push(...batch))
    const token = loginToken({ role: 'ADMIN', sub: 'legacy-1' })
    expect(sessionFromToken(token).role).toBe('admin')
    sessionFromToken(token)
    restore()
    expect(events).toEqual([{ name: 'legacy_uppercase_role_detected', properties: { role: 'ADMIN' } }])
  })

  it('reports an unknown role as an error and treats the user as guest', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    const session = sessionFromToken(loginToken({ role: 'overlord', sub: 'unknown-1' }))
    expect(session.role).toBe('guest')
    expect(session.authenticated).toBe(true)
    expect(error).toHaveBeenCalledTimes(1)
  })

  it('login stores the token and flags the login event; logout clears both', () => {
    const restore = setAnalyticsTransport(async () => undefined)
    login(loginToken())
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).not.toBeNull()
    expect(localStorage.getItem('loginEvent')).toBe('true')
    logout()
    expect(localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull()
    expect(localStorage.getItem('loginEvent')).toBeNull()
    expect(consumeLoginEvent()).toBe(false)
    restore()
  })

  it('re-reads the state on a storage event (another tab signed in or out)', () => {
    const { result } = renderHook(() => useSession())
    expect(result.current.authenticated).toBe(false)
    act(() => {
      localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'citrus' }))
      window.dispatchEvent(new StorageEvent('storage', { key: TOKEN_STORAGE_KEY }))
    })
    expect(result.current).toMatchObject({ authenticated: true, role: 'citrus' })
    act(() => {
      localStorage.removeItem(TOKEN_STORAGE_KEY)
      window.dispatchEvent(new StorageEvent('storage', { key: TOKEN_STORAGE_KEY }))
    })
    expect(result.current.authenticated).toBe(false)
  })
})
