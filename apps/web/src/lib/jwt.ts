/** Reads a JWT's payload without verifying it: the server verifies, the client only needs the claims. */
export function decodeJwtPayload(token: string): Record<string, unknown> | null {
  const parts = token.split('.')
  if (parts.length !== 3 || !parts[1]) return null
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/')
    const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4)
    const binary = atob(padded)
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0))
    const json: unknown = JSON.parse(new TextDecoder().decode(bytes))
    return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** True when the exp claim (seconds since the epoch) is in the past. A token without exp counts as expired. */
export function isExpired(exp: unknown, nowMs: number = Date.now()): boolean {
  return typeof exp !== 'number' || exp * 1000 <= nowMs
}
