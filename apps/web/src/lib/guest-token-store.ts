/**
 * The shareable-link token of the current guest session (spec 1 §4). Held in memory and in
 * sessionStorage so a reload of the tab keeps the session; the guest-session module validates it.
 */
export const SHAREABLE_TOKEN_STORAGE_KEY = 'shareableToken'

let activeToken: string | null = null

export function getActiveShareableToken(): string | null {
  return activeToken
}

export function setActiveShareableToken(token: string | null): void {
  activeToken = token
  try {
    if (token) sessionStorage.setItem(SHAREABLE_TOKEN_STORAGE_KEY, token)
    else sessionStorage.removeItem(SHAREABLE_TOKEN_STORAGE_KEY)
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
