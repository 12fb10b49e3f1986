import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { tokensFor } from './tokens.ts'

const SECRET = 'unit-test-secret-that-is-long-enough-for-hs256'
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const parts = (token: string) =>
  token.split('.').map((part, index) => (index < 2 ? JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) : part))

/** A token signed by hand: any header, HMAC with the given algorithm (or no signature for alg none). */
function forge(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  hmac: 'sha256' | 'sha384' | 'sha512' | null,
  secret = SECRET,
) {
  const input = `${b64(header)}.${b64(payload)}`
  if (!hmac) return `${input}.`
  return `${input}.${createHmac(hmac, secret).update(input).digest('base64url')}`
}

const user = { id: 7, email: 'a@b.co', company_id: 3, company_name: 'Acme', role: 'admin' as const, phone_number: null }
const future = Math.floor(Date.now() / 1000) + 3600
const loginClaims = { sub: '7', email: 'a@b.co', exp: future, company_id: 3, company_name: 'Acme', role: 'admin', phone_number: null }

describe('tokens through @fastify/jwt', () => {
  it('signs login tokens with HS256, typ JWT and exactly the documented claims', async () => {
    const tokens = await tokensFor(SECRET)
    const token = tokens.signLogin(user, 1_800_000_000_000)
    const [header, payload] = parts(token)
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' })
    expect(payload).toEqual({ ...loginClaims, exp: 1_800_000_000 + 12 * 3600 })
    expect(tokens.verifyLogin(token, 1_800_000_000_000)).toEqual({ ok: true, claims: { ...loginClaims, exp: 1_800_000_000 + 12 * 3600 } })
    expect(tokens.verifyLogin(token, (1_800_000_000 + 12 * 3600 + 1) * 1000)).toEqual({ ok: false, reason: 'expired' })
  })

  it('accepts a hand-made HS256 token with the right secret and typ (the forging below is sound)', async () => {
    const tokens = await tokensFor(SECRET)
    expect(tokens.verifyLogin(forge({ alg: 'HS256', typ: 'JWT' }, loginClaims, 'sha256')).ok).toBe(true)
  })

  it.each([
    ['alg none without a signature', forge({ alg: 'none', typ: 'JWT' }, loginClaims, null)],
    ['alg none with a signature', forge({ alg: 'none', typ: 'JWT' }, loginClaims, 'sha256')],
    ['HS384', forge({ alg: 'HS384', typ: 'JWT' }, loginClaims, 'sha384')],
    ['HS512', forge({ alg: 'HS512', typ: 'JWT' }, loginClaims, 'sha512')],
    ['RS256 header over an HMAC', forge({ alg: 'RS256', typ: 'JWT' }, loginClaims, 'sha256')],
    ['another secret', forge({ alg: 'HS256', typ: 'JWT' }, loginClaims, 'sha256', 'another-secret-of-sufficient-length-000')],
    ['a share token typ', forge({ alg: 'HS256', typ: 'share+jwt' }, loginClaims, 'sha256')],
    ['a claim missing', forge({ alg: 'HS256', typ: 'JWT' }, { ...loginClaims, company_id: undefined }, 'sha256')],
  ])('refuses a login token with %s', async (_case, token) => {
    const tokens = await tokensFor(SECRET)
    expect(tokens.verifyLogin(token)).toEqual({ ok: false, reason: 'invalid' })
  })

  it('keeps the kinds apart: share and reset tokens are not login tokens, and the reverse', async () => {
    const tokens = await tokensFor(SECRET)
    const share = tokens.signShare({ id: 'abc', url_type: 'public', role: null, invite_phone: null, invite_email: null, expires_at: null })
    const { token: reset } = tokens.signReset(7)
    const login = tokens.signLogin(user)
    expect(parts(share)[0]).toEqual({ alg: 'HS256', typ: 'share+jwt' })
    expect(parts(reset)[0]).toEqual({ alg: 'HS256', typ: 'reset+jwt' })
    expect(tokens.verifyLogin(share).ok).toBe(false)
    expect(tokens.verifyLogin(reset).ok).toBe(false)
    expect(tokens.verifyShare(login).ok).toBe(false)
    expect(tokens.verifyReset(login).ok).toBe(false)
    expect(tokens.verifyShare(share)).toEqual({ ok: true, claims: { ut: 'public', id: 'abc', exp: 253_402_300_799 } })
    expect(tokens.verifyReset(reset)).toMatchObject({ ok: true, claims: { sub: '7' } })
  })

  it('signs a share token deterministically and finds the id of an expired one', async () => {
    const tokens = await tokensFor(SECRET)
    const link = {
      id: 'l1',
      url_type: 'invite',
      role: 'user',
      invite_phone: null,
      invite_email: 'x@y.co',
      expires_at: new Date(Date.now() - 60_000),
    }
    expect(tokens.signShare(link)).toBe(tokens.signShare(link))
    const token = tokens.signShare(link)
    expect(tokens.verifyShare(token)).toEqual({ ok: false, reason: 'expired' })
    expect(tokens.shareIdOfExpired(token)).toBe('l1')
    expect(tokens.shareIdOfExpired('garbage')).toBeNull()
    expect(
      tokens.shareIdOfExpired(
        forge({ alg: 'HS256', typ: 'share+jwt' }, { id: 'l1', ut: 'x', exp: 1000 }, 'sha256', 'wrong-secret-wrong-secret-wrong-secret'),
      ),
    ).toBeNull()
  })
})
