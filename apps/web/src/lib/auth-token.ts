import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { decodeJwtPayload, isExpired } from './jwt'

/** Claims of the login token (spec 1 §3). */
export interface LoginClaims {
  sub: string
  email: string
  exp: number
  company_id: number | null
  company_name: string | null
  /** raw role string as found in the token; see normalizeRole */
  role: string | null
  phone_number: string | null
}

/** Set on login, cleared on logout (spec 1 §4); read once to record user_logged_in. */
export const LOGIN_EVENT_STORAGE_KEY = 'loginEvent'

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

export function parseLoginClaims(token: string): LoginClaims | null {
  const payload = decodeJwtPayload(token)
  if (!payload) return null
  const companyId = payload.company_id
  return {
    sub: payload.sub === undefined || payload.sub === null ? '' : String(payload.sub),
    email: str(payload.email) ?? '',
    exp: typeof payload.exp === 'number' ? payload.exp : 0,
    company_id: typeof companyId === 'number' ? companyId : typeof companyId === 'string' && companyId !== '' ? Number(companyId) : null,
    company_name: str(payload.company_name),
    role: str(payload.role),
    phone_number: str(payload.phone_number),
  }
}

export function readStoredToken(): string | null {
  return localStorage.getItem(TOKEN_STORAGE_KEY)
}

/** The stored login token when it decodes and has not expired; else null. */
export function getValidLoginToken(nowMs: number = Date.now()): string | null {
  const token = readStoredToken()
  if (!token) return null
  const claims = parseLoginClaims(token)
  if (!claims || isExpired(claims.exp, nowMs)) return null
  return token
}

export function storeLoginToken(token: string): void {
  localStorage.setItem(TOKEN_STORAGE_KEY, token)
  localStorage.setItem(LOGIN_EVENT_STORAGE_KEY, 'true')
}

export function clearLoginToken(): void {
  localStorage.removeItem(TOKEN_STORAGE_KEY)
  localStorage.removeItem(LOGIN_EVENT_STORAGE_KEY)
}
