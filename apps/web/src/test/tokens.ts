/** Unsigned JWT-shaped tokens for tests (the client never verifies signatures). */
function base64url(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value))
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

export function makeJwt(claims: Record<string, unknown>): string {
  return `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}.signature`
}

const inOneHour = () => Math.floor(Date.now() / 1000) + 3600

export function loginToken(overrides: Record<string, unknown> = {}): string {
  return makeJwt({
    sub: '42',
    email: 'ada@example.com',
    exp: inOneHour(),
    company_id: 7,
    company_name: 'Acme Health',
    role: 'admin',
    phone_number: null,
    ...overrides,
  })
}

export function shareableToken(overrides: Record<string, unknown> = {}): string {
  return makeJwt({ exp: inOneHour(), ut: 'private', r: 'member', ph: '+12065550100', ...overrides })
}
