import { createHash, randomBytes } from 'node:crypto'
import {
  LOGIN_TOKEN_TTL_SECONDS,
  PASSWORD_RESET_TTL_SECONDS,
  SHARE_TOKEN_NEVER_EXPIRES_EXP,
  loginTokenClaimsSchema,
  type LoginTokenClaims,
  type Role,
} from '@citrus/contracts'
import { SignJWT, decodeJwt, errors as joseErrors, jwtVerify } from 'jose'
import { z } from 'zod'

/**
 * Every token the server signs is an HS256 JWT keyed with JWT_SECRET. The `typ` header keeps the
 * kinds apart, so a shareable-link token can never pass as a login token or a reset token:
 *  - login:  typ JWT        claims exactly sub, email, exp, company_id, company_name, role, phone_number
 *  - share:  typ share+jwt  claims exp, ut, r, ph, em, id (spec 1 §3 plus the link id)
 *  - reset:  typ reset+jwt  claims sub, exp, jti (only its hash is stored; single use)
 */
const ALGORITHM = 'HS256'
const TYP = { login: 'JWT', share: 'share+jwt', reset: 'reset+jwt' } as const

export type TokenFailure = 'expired' | 'invalid'
export type Verified<T> = { ok: true; claims: T } | { ok: false; reason: TokenFailure }

const keyCache = new Map<string, Uint8Array>()
function keyOf(secret: string): Uint8Array {
  let key = keyCache.get(secret)
  if (!key) {
    key = new TextEncoder().encode(secret)
    keyCache.set(secret, key)
  }
  return key
}

const nowSeconds = (nowMs: number) => Math.floor(nowMs / 1000)

async function verify<T>(token: string, secret: string, typ: string, schema: z.ZodType<T>, nowMs?: number): Promise<Verified<T>> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: [ALGORITHM],
      typ,
      ...(nowMs === undefined ? {} : { currentDate: new Date(nowMs) }),
    })
    const parsed = schema.safeParse(payload)
    return parsed.success ? { ok: true, claims: parsed.data } : { ok: false, reason: 'invalid' }
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' }
    return { ok: false, reason: 'invalid' }
  }
}

// ---- login ---------------------------------------------------------------------------------

export interface LoginSubject {
  id: number
  email: string
  company_id: number
  company_name: string
  role: Role
  phone_number: string | null
}

export async function signLoginToken(secret: string, user: LoginSubject, nowMs = Date.now()): Promise<string> {
  return new SignJWT({
    email: user.email,
    company_id: user.company_id,
    company_name: user.company_name,
    role: user.role,
    phone_number: user.phone_number,
  })
    .setProtectedHeader({ alg: ALGORITHM, typ: TYP.login })
    .setSubject(String(user.id))
    .setExpirationTime(nowSeconds(nowMs) + LOGIN_TOKEN_TTL_SECONDS)
    .sign(keyOf(secret))
}

export function verifyLoginToken(token: string, secret: string, nowMs?: number): Promise<Verified<LoginTokenClaims>> {
  return verify(token, secret, TYP.login, loginTokenClaimsSchema.extend({ sub: z.string().regex(/^\d+$/) }), nowMs)
}

// ---- shareable links -----------------------------------------------------------------------

export const shareTokenClaimsSchema = z.object({
  id: z.string(),
  exp: z.number().int(),
  ut: z.string(),
  r: z.string().optional(),
  ph: z.string().optional(),
  em: z.string().optional(),
})
export type ShareTokenClaims = z.infer<typeof shareTokenClaimsSchema>

export interface ShareTokenSubject {
  id: string
  url_type: string
  role: string | null
  invite_phone: string | null
  invite_email: string | null
  /** null = never expires */
  expires_at: Date | null
}

/**
 * Deterministic for a given link (no iat or nonce), so the URL can be re-created from the stored
 * record instead of keeping the credential in the database.
 */
export async function signShareToken(secret: string, link: ShareTokenSubject): Promise<string> {
  const claims: Record<string, string> = { ut: link.url_type, id: link.id }
  if (link.role) claims.r = link.role
  if (link.invite_phone) claims.ph = link.invite_phone
  if (link.invite_email) claims.em = link.invite_email
  const exp = link.expires_at ? nowSeconds(link.expires_at.getTime()) : SHARE_TOKEN_NEVER_EXPIRES_EXP
  return new SignJWT(claims).setProtectedHeader({ alg: ALGORITHM, typ: TYP.share }).setExpirationTime(exp).sign(keyOf(secret))
}

export function verifyShareToken(token: string, secret: string, nowMs?: number): Promise<Verified<ShareTokenClaims>> {
  return verify(token, secret, TYP.share, shareTokenClaimsSchema, nowMs)
}

/** The link id of a correctly signed share token even when it has expired (for is_expired answers). */
export async function shareIdOfExpiredToken(token: string, secret: string): Promise<string | null> {
  // Verify the signature at the moment of expiry: proves we issued it without trusting the payload blindly.
  let exp: unknown
  try {
    exp = decodeJwt(token).exp
  } catch {
    return null
  }
  if (typeof exp !== 'number') return null
  const result = await verifyShareToken(token, secret, exp * 1000 - 1000)
  return result.ok ? result.claims.id : null
}

// ---- password reset ------------------------------------------------------------------------

const resetClaimsSchema = z.object({ sub: z.string().regex(/^\d+$/), exp: z.number().int(), jti: z.string().min(16) })
export type ResetTokenClaims = z.infer<typeof resetClaimsSchema>

export async function signResetToken(secret: string, userId: number, nowMs = Date.now()): Promise<{ token: string; expiresAt: Date }> {
  const exp = nowSeconds(nowMs) + PASSWORD_RESET_TTL_SECONDS
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: ALGORITHM, typ: TYP.reset })
    .setSubject(String(userId))
    .setJti(randomBytes(24).toString('base64url'))
    .setExpirationTime(exp)
    .sign(keyOf(secret))
  return { token, expiresAt: new Date(exp * 1000) }
}

export function verifyResetToken(token: string, secret: string, nowMs?: number): Promise<Verified<ResetTokenClaims>> {
  return verify(token, secret, TYP.reset, resetClaimsSchema, nowMs)
}

/** Tokens and keys are stored only as SHA-256 hashes (they carry 192+ bits of entropy, so no salt is needed). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
