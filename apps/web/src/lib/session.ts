import { TOKEN_STORAGE_KEY, type SessionRole } from '@citrus/contracts'
import { useEffect, useSyncExternalStore } from 'react'
import { track } from './analytics'
import {
  clearLoginToken,
  LOGIN_EVENT_STORAGE_KEY,
  parseLoginClaims,
  readStoredToken,
  storeLoginToken,
  type LoginClaims,
} from './auth-token'
import { isExpired } from './jwt'
import { normalizeRole } from './roles'

/** Authentication state (spec 1 §4): authenticated means a stored token that decodes and has not expired. */
export interface SessionUser {
  id: string
  email: string
  companyId: number | null
  companyName: string | null
  phoneNumber: string | null
}

export interface SessionState {
  token: string | null
  claims: LoginClaims | null
  authenticated: boolean
  /** the normalised role; guest when signed out or the token's role is missing/unknown */
  role: SessionRole
  user: SessionUser | null
}

const SIGNED_OUT: SessionState = { token: null, claims: null, authenticated: false, role: 'guest', user: null }

const listeners = new Set<() => void>()
let cached: { key: string; state: SessionState } = { key: '', state: SIGNED_OUT }
const reportedTokens = new Set<string>()

function reportRole(token: string, raw: string | null, issue: ReturnType<typeof normalizeRole>['issue']): void {
  if (reportedTokens.has(token)) return
  reportedTokens.add(token)
  if (issue === 'legacy') track('legacy_uppercase_role_detected', { role: raw })
  if (issue === 'unknown') console.error(`Unknown role in login token: ${String(raw)}; treating the session as guest.`)
}

/** Pure: the session a token string describes at a given time. */
export function sessionFromToken(token: string | null, nowMs: number = Date.now()): SessionState {
  if (!token) return SIGNED_OUT
  const claims = parseLoginClaims(token)
  if (!claims || isExpired(claims.exp, nowMs)) return { ...SIGNED_OUT, token, claims }
  const { role, issue } = normalizeRole(claims.role)
  reportRole(token, claims.role, issue)
  return {
    token,
    claims,
    authenticated: true,
    role,
    user: {
      id: claims.sub,
      email: claims.email,
      companyId: claims.company_id,
      companyName: claims.company_name,
      phoneNumber: claims.phone_number,
    },
  }
}

export function getSession(): SessionState {
  let token: string | null
  try {
    token = readStoredToken()
  } catch {
    token = null
  }
  const claims = token ? parseLoginClaims(token) : null
  const live = claims ? !isExpired(claims.exp) : false
  const key = `${token ?? ''}|${live}`
  if (key !== cached.key) cached = { key, state: sessionFromToken(token) }
  return cached.state
}

function notify(): void {
  for (const listener of listeners) listener()
}

function onStorage(event: StorageEvent): void {
  if (event.key === null || event.key === TOKEN_STORAGE_KEY) notify()
}

export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener)
  if (listeners.size === 1) window.addEventListener('storage', onStorage)
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0) window.removeEventListener('storage', onStorage)
  }
}

/** Stores the login token and flags the login event (spec 1 §4). */
export function login(token: string): SessionState {
  storeLoginToken(token)
  notify()
  return getSession()
}

/** Clears the token and the login flag. */
export function logout(): void {
  const wasSignedIn = getSession().authenticated
  clearLoginToken()
  if (wasSignedIn) track('user_logged_out')
  notify()
}

/** Re-reads storage, e.g. after the token's expiry passed. */
export function refreshSession(): void {
  notify()
}

/** Records user_logged_in once per login (the flag set by login()). */
export function consumeLoginEvent(): boolean {
  if (localStorage.getItem(LOGIN_EVENT_STORAGE_KEY) !== 'true') return false
  localStorage.removeItem(LOGIN_EVENT_STORAGE_KEY)
  return true
}

export function useSession(): SessionState {
  const state = useSyncExternalStore(subscribeSession, getSession, () => SIGNED_OUT)
  const exp = state.authenticated ? state.claims?.exp : undefined
  useEffect(() => {
    if (exp === undefined) return
    const delay = exp * 1000 - Date.now()
    // setTimeout overflows above ~24.8 days; such tokens are re-checked on the next storage change.
    if (delay > 2_147_483_647) return
    const timer = setTimeout(refreshSession, Math.max(delay, 0) + 50)
    return () => clearTimeout(timer)
  }, [exp])
  return state
}
