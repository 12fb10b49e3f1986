import { createHash, randomBytes } from 'node:crypto'
import fastifyJwt, { type JWT } from '@fastify/jwt'
import {
  LOGIN_TOKEN_TTL_SECONDS,
  PASSWORD_RESET_TTL_SECONDS,
  SHARE_TOKEN_NEVER_EXPIRES_EXP,
  loginTokenClaimsSchema,
  type LoginTokenClaims,
  type Role,
} from '@citrus/contracts'
import Fastify, { type FastifyInstance } from 'fastify'
import { z } from 'zod'

/**
 * Every token the server signs is an HS256 JWT keyed with JWT_SECRET, signed and verified through
 * @fastify/jwt (fast-jwt). The algorithm is pinned: verification accepts HS256 only, so a token with
 * `alg: none` or any other algorithm is refused. The `typ` header keeps the kinds apart (each kind is
 * its own @fastify/jwt namespace that checks it), so a shareable-link token can never pass as a login
 * token or a reset token:
 *  - login:  typ JWT        claims exactly sub, email, exp, company_id, company_name, role, phone_number
 *  - share:  typ share+jwt  claims exp, ut, r, ph, em, id (spec 1 §3 plus the link id)
 *  - reset:  typ reset+jwt  claims sub, exp, jti (only its hash is stored; single use)
 */
export const JWT_ALGORITHM = 'HS256'
const TYP = { login: 'JWT', share: 'share+jwt', reset: 'reset+jwt' } as const
type TokenKind = keyof typeof TYP

declare module '@fastify/jwt' {
  interface FastifyJWT {
    namespaces: TokenKind
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** signing and verification of the server's tokens (login, share, reset) */
    tokens: Tokens
  }
}

export type TokenFailure = 'expired' | 'invalid'
export type Verified<T> = { ok: true; claims: T } | { ok: false; reason: TokenFailure }

const nowSeconds = (nowMs: number) => Math.floor(nowMs / 1000)

export interface LoginSubject {
  id: number
  email: string
  company_id: number
  company_name: string
  role: Role
  phone_number: string | null
  /** users.sessions_revoked_at: the new token must be issued after it */
  sessions_revoked_at?: Date | null
}

/**
 * Whether a login token was issued at or before its user's sessions were revoked (a password reset, a role change,
 * a deactivation; issue 32 §6). The claims are fixed by the spec and hold no `iat`: the issue second is `exp` less
 * the fixed lifetime (so changing LOGIN_TOKEN_TTL_SECONDS misdates the tokens already issued).
 */
export function loginTokenRevoked(exp: number, revokedAt: Date | null): boolean {
  return revokedAt !== null && (exp - LOGIN_TOKEN_TTL_SECONDS) * 1000 <= revokedAt.getTime()
}

/** A token signed in the second of the revocation would count as revoked: sign it as of the next second. */
function loginIssueTime(nowMs: number, revokedAt: Date | null | undefined): number {
  if (!revokedAt) return nowMs
  return Math.max(nowMs, (Math.floor(revokedAt.getTime() / 1000) + 1) * 1000)
}

export const shareTokenClaimsSchema = z.object({
  id: z.string(),
  exp: z.number().int(),
  ut: z.string(),
  r: z.string().optional(),
  ph: z.string().optional(),
  em: z.string().optional(),
  /** verifications of the link's contact that succeeded (docs/decisions/0023) */
  vf: z.array(z.string()).max(4).optional(),
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

const loginClaimsSchema = loginTokenClaimsSchema.extend({ sub: z.string().regex(/^\d+$/) })
const resetClaimsSchema = z.object({ sub: z.string().regex(/^\d+$/), exp: z.number().int(), jti: z.string().min(16) })
export type ResetTokenClaims = z.infer<typeof resetClaimsSchema>

/** The server's tokens over the three @fastify/jwt namespaces registered by {@link registerTokens}. */
export class Tokens {
  constructor(private readonly jwt: Record<TokenKind, JWT>) {}

  private verify<T>(kind: TokenKind, token: string, schema: z.ZodType<T>, nowMs?: number): Verified<T> {
    try {
      const payload: unknown = this.jwt[kind].verify(token, nowMs === undefined ? undefined : { clockTimestamp: nowMs })
      const parsed = schema.safeParse(payload)
      return parsed.success ? { ok: true, claims: parsed.data } : { ok: false, reason: 'invalid' }
    } catch (error) {
      if ((error as { code?: unknown }).code === 'FAST_JWT_EXPIRED') return { ok: false, reason: 'expired' }
      return { ok: false, reason: 'invalid' }
    }
  }

  signLogin(user: LoginSubject, nowMs = Date.now()): string {
    return this.jwt.login.sign({
      sub: String(user.id),
      email: user.email,
      exp: nowSeconds(loginIssueTime(nowMs, user.sessions_revoked_at)) + LOGIN_TOKEN_TTL_SECONDS,
      company_id: user.company_id,
      company_name: user.company_name,
      role: user.role,
      phone_number: user.phone_number,
    })
  }

  verifyLogin(token: string, nowMs?: number): Verified<LoginTokenClaims> {
    return this.verify('login', token, loginClaimsSchema, nowMs)
  }

  /**
   * Deterministic for a given link (no iat or nonce), so the URL can be re-created from the stored
   * record instead of keeping the credential in the database.
   */
  signShare(link: ShareTokenSubject): string {
    const claims: Record<string, string | number> = { ut: link.url_type, id: link.id }
    if (link.role) claims.r = link.role
    if (link.invite_phone) claims.ph = link.invite_phone
    if (link.invite_email) claims.em = link.invite_email
    claims.exp = link.expires_at ? nowSeconds(link.expires_at.getTime()) : SHARE_TOKEN_NEVER_EXPIRES_EXP
    return this.jwt.share.sign(claims)
  }

  /**
   * The link's token plus the ids of the verifications the holder passed (`vf`), valid until `expiresAt`
   * (or the link's own expiry when earlier): what a member gets back after entering a verification code.
   */
  signVerifiedShare(link: ShareTokenSubject, verificationIds: readonly string[], expiresAt: Date): string {
    const claims: Record<string, string | number | string[]> = { ut: link.url_type, id: link.id }
    if (link.role) claims.r = link.role
    if (link.invite_phone) claims.ph = link.invite_phone
    if (link.invite_email) claims.em = link.invite_email
    claims.vf = [...verificationIds]
    const linkExp = link.expires_at ? nowSeconds(link.expires_at.getTime()) : SHARE_TOKEN_NEVER_EXPIRES_EXP
    claims.exp = Math.min(linkExp, nowSeconds(expiresAt.getTime()))
    return this.jwt.share.sign(claims)
  }

  verifyShare(token: string, nowMs?: number): Verified<ShareTokenClaims> {
    return this.verify('share', token, shareTokenClaimsSchema, nowMs)
  }

  /** The link id of a correctly signed share token even when it has expired (for is_expired answers). */
  shareIdOfExpired(token: string): string | null {
    // Verify the signature at the moment of expiry: proves we issued it without trusting the payload blindly.
    let exp: unknown
    try {
      exp = this.jwt.share.decode<{ exp?: unknown }>(token)?.exp
    } catch {
      return null
    }
    if (typeof exp !== 'number') return null
    const result = this.verifyShare(token, exp * 1000 - 1000)
    return result.ok ? result.claims.id : null
  }

  signReset(userId: number, nowMs = Date.now()): { token: string; expiresAt: Date } {
    const exp = nowSeconds(nowMs) + PASSWORD_RESET_TTL_SECONDS
    const token = this.jwt.reset.sign({ sub: String(userId), jti: randomBytes(24).toString('base64url'), exp })
    return { token, expiresAt: new Date(exp * 1000) }
  }

  verifyReset(token: string, nowMs?: number): Verified<ResetTokenClaims> {
    return this.verify('reset', token, resetClaimsSchema, nowMs)
  }
}

/** Registers @fastify/jwt once per token kind (HS256 only, typ checked) and decorates `app.tokens`. */
export async function registerTokens(app: FastifyInstance, secret: string) {
  for (const kind of Object.keys(TYP) as TokenKind[]) {
    await app.register(fastifyJwt, {
      secret,
      namespace: kind,
      // the request decorator is unused: request.auth is set by plugins/auth.ts
      decoratorName: 'jwtClaims',
      sign: { algorithm: JWT_ALGORITHM, noTimestamp: true, header: { alg: JWT_ALGORITHM, typ: TYP[kind] } },
      verify: { algorithms: [JWT_ALGORITHM], checkTyp: TYP[kind] },
    })
  }
  app.decorate('tokens', new Tokens(app.jwt))
}

// ---- callers without an app (tests, scripts) ---------------------------------------------------

const standalone = new Map<string, Promise<Tokens>>()

/** The same @fastify/jwt setup on a private instance, for code that holds only the secret. */
export function tokensFor(secret: string): Promise<Tokens> {
  let tokens = standalone.get(secret)
  if (!tokens) {
    tokens = (async () => {
      const instance = Fastify({ logger: false })
      await registerTokens(instance, secret)
      await instance.ready()
      return instance.tokens
    })()
    standalone.set(secret, tokens)
  }
  return tokens
}

export async function signLoginToken(secret: string, user: LoginSubject, nowMs = Date.now()): Promise<string> {
  return (await tokensFor(secret)).signLogin(user, nowMs)
}
export async function verifyLoginToken(token: string, secret: string, nowMs?: number): Promise<Verified<LoginTokenClaims>> {
  return (await tokensFor(secret)).verifyLogin(token, nowMs)
}
export async function signShareToken(secret: string, link: ShareTokenSubject): Promise<string> {
  return (await tokensFor(secret)).signShare(link)
}
export async function verifyShareToken(token: string, secret: string, nowMs?: number): Promise<Verified<ShareTokenClaims>> {
  return (await tokensFor(secret)).verifyShare(token, nowMs)
}
export async function shareIdOfExpiredToken(token: string, secret: string): Promise<string | null> {
  return (await tokensFor(secret)).shareIdOfExpired(token)
}
export async function signResetToken(secret: string, userId: number, nowMs = Date.now()): Promise<{ token: string; expiresAt: Date }> {
  return (await tokensFor(secret)).signReset(userId, nowMs)
}
export async function verifyResetToken(token: string, secret: string, nowMs?: number): Promise<Verified<ResetTokenClaims>> {
  return (await tokensFor(secret)).verifyReset(token, nowMs)
}

/** Tokens and keys are stored only as SHA-256 hashes (they carry 192+ bits of entropy, so no salt is needed). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
