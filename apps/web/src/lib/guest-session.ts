import { endpoints, type EndpointOutput, type SessionRole } from '@citrus/contracts'
import { useSyncExternalStore } from 'react'
import { api } from './api-client'
import { getActiveShareableToken, readPersistedShareableToken, setActiveShareableToken } from './guest-token-store'
import { decodeJwtPayload, isExpired } from './jwt'
import { normalizeRole } from './roles'

/** GET /shareable-url/validate-shareable-link?token= (spec 1 §3). */
export type ShareableLinkValidation = EndpointOutput<typeof endpoints.shareableUrl.validate>

/** Claims of a shareable token (spec 1 §3): exp, ut (url type), r (role), ph (phone), em (e-mail). */
export interface ShareableClaims {
  exp?: number
  ut?: string
  r?: string
  ph?: string
  em?: string
}

export type Check<T = undefined> = { ok: true; value: T } | { ok: false; reason: string }

/** Client check (spec 1 §5): invalid if missing, without exp, or expired. */
export function checkShareableToken(token: string | null | undefined, nowMs: number = Date.now()): Check<ShareableClaims> {
  if (!token) return { ok: false, reason: 'missing token' }
  const payload = decodeJwtPayload(token)
  if (!payload) return { ok: false, reason: 'malformed token' }
  if (typeof payload.exp !== 'number') return { ok: false, reason: 'token has no exp' }
  if (isExpired(payload.exp, nowMs)) return { ok: false, reason: 'token expired' }
  const pick = (key: string) => (typeof payload[key] === 'string' ? (payload[key] as string) : undefined)
  return { ok: true, value: { exp: payload.exp, ut: pick('ut'), r: pick('r'), ph: pick('ph'), em: pick('em') } }
}

/**
 * The server check must agree with the token (spec 1 §5): same url type; same role ignoring case when both
 * are present; the verification the server requires is backed by a ph / em claim; not expired on the server.
 */
export function compareShareableClaims(claims: ShareableClaims, server: ShareableLinkValidation): Check {
  if (claims.ut !== server.url_type) return { ok: false, reason: 'url type differs from the server' }
  if (claims.r && server.role && claims.r.toLowerCase() !== server.role.toLowerCase()) {
    return { ok: false, reason: 'role differs from the server' }
  }
  if (server.requires_phone_verification && !claims.ph) return { ok: false, reason: 'phone verification required but no ph claim' }
  if (server.requires_email_verification && !claims.em) return { ok: false, reason: 'email verification required but no em claim' }
  if (server.is_expired) return { ok: false, reason: 'server reports the link as expired' }
  return { ok: true, value: undefined }
}

function trimSlashes(path: string): string {
  return path.replace(/\/+$/, '')
}

/** A guest may visit a path that starts with one of client_routes, ignoring trailing slashes (spec 1 §4). */
export function isGuestPathAllowed(pathname: string, clientRoutes: readonly string[]): boolean {
  const path = trimSlashes(pathname)
  return clientRoutes.some((route) => {
    const allowed = trimSlashes(route)
    return path === allowed || path.startsWith(`${allowed}/`)
  })
}

export type ValidationFetcher = (token: string) => Promise<ShareableLinkValidation>

const fetchValidation: ValidationFetcher = (token) => api(endpoints.shareableUrl.validate, { query: { token } })

/** Full validation: client check, server check, claim comparison. Failures are ignored with a warning. */
export async function validateShareableToken(
  token: string,
  options: { fetcher?: ValidationFetcher; nowMs?: number } = {},
): Promise<ShareableLinkValidation | null> {
  const local = checkShareableToken(token, options.nowMs)
  if (!local.ok) {
    console.warn(`Ignoring shareable token: ${local.reason}`)
    return null
  }
  let server: ShareableLinkValidation
  try {
    server = await (options.fetcher ?? fetchValidation)(token)
  } catch (error) {
    console.warn(`Ignoring shareable token: validation failed (${error instanceof Error ? error.message : String(error)})`)
    return null
  }
  const compared = compareShareableClaims(local.value, server)
  if (!compared.ok) {
    console.warn(`Ignoring shareable token: ${compared.reason}`)
    return null
  }
  return { ...server, client_routes: Array.isArray(server.client_routes) ? server.client_routes : [] }
}

export type GuestSessionState =
  | { status: 'none' }
  | { status: 'validating'; token: string }
  | { status: 'active'; token: string; payload: ShareableLinkValidation; role: SessionRole }
  | { status: 'invalid'; token: string }

let state: GuestSessionState = { status: 'none' }
const listeners = new Set<() => void>()

function setState(next: GuestSessionState): void {
  state = next
  // while a token is validated nothing is sent with it, but the tab's stored session stays: a page load in the
  // meantime (a verified guest opening another allowed URL) must still find it rather than go to sign in
  setActiveShareableToken(next.status === 'active' ? next.token : null, { keepStored: next.status === 'validating' })
  for (const listener of listeners) listener()
}

export function getGuestSession(): GuestSessionState {
  return state
}

export function subscribeGuestSession(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Starts (or keeps) a guest session for a shareable token; concurrent calls for one token share the work. */
export async function startGuestSession(token: string, options: { fetcher?: ValidationFetcher } = {}): Promise<GuestSessionState> {
  if (state.status !== 'none' && state.token === token) return state
  setState({ status: 'validating', token })
  const payload = await validateShareableToken(token, options)
  // A newer token may have replaced this one while validating.
  if (state.status !== 'validating' || state.token !== token) return state
  setState(payload ? { status: 'active', token, payload, role: normalizeRole(payload.role).role } : { status: 'invalid', token })
  return state
}

export function endGuestSession(): void {
  if (state.status !== 'none') setState({ status: 'none' })
}

/** A tab reload keeps the guest session: re-validate the token kept in sessionStorage. */
export function resumeGuestSession(options: { fetcher?: ValidationFetcher } = {}): void {
  const token = getActiveShareableToken() ?? readPersistedShareableToken()
  if (token && state.status === 'none') void startGuestSession(token, options)
}

export function useGuestSession(): GuestSessionState {
  return useSyncExternalStore(subscribeGuestSession, getGuestSession, getGuestSession)
}
