/**
 * The shareable-link token of the current guest session (spec 1 §4). Held in memory and in
 * sessionStorage so a reload of the tab keeps the session; the guest-session module validates it.
 */
export const SHAREABLE_TOKEN_STORAGE_KEY = 'shareableToken'
/** The token whose access modal the guest completed in this tab (so a reload does not ask again). */
export const SHAREABLE_ACCEPTED_STORAGE_KEY = 'shareableTokenAccepted'

let activeToken: string | null = null

export function getActiveShareableToken(): string | null {
  return activeToken
}

/**
 * Sets the token the API client sends. `keepStored`: the token is not active yet (being validated) but the
 * stored one stays, so a page load meanwhile still finds the tab's guest session.
 */
export function setActiveShareableToken(token: string | null, options: { keepStored?: boolean } = {}): void {
  activeToken = token
  if (!token && options.keepStored) return
  try {
    if (token) sessionStorage.setItem(SHAREABLE_TOKEN_STORAGE_KEY, token)
    else sessionStorage.removeItem(SHAREABLE_TOKEN_STORAGE_KEY)
    if (sessionStorage.getItem(SHAREABLE_ACCEPTED_STORAGE_KEY) !== token) sessionStorage.removeItem(SHAREABLE_ACCEPTED_STORAGE_KEY)
  } catch {
    // storage may be unavailable (private mode); the in-memory token still works for this page
  }
}

export function readPersistedShareableToken(): string | null {
  try {
    return sessionStorage.getItem(SHAREABLE_TOKEN_STORAGE_KEY)
  } catch {
    return null
  }
}

/** The guest completed the access modal for this token (verified, or continued on a public link). */
export function markShareableTokenAccepted(token: string): void {
  try {
    sessionStorage.setItem(SHAREABLE_ACCEPTED_STORAGE_KEY, token)
  } catch {
    // without storage a reload asks again
  }
}

export function isShareableTokenAccepted(token: string): boolean {
  try {
    return sessionStorage.getItem(SHAREABLE_ACCEPTED_STORAGE_KEY) === token
  } catch {
    return false
  }
}
