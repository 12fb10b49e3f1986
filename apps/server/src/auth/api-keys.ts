import { createHash, randomBytes } from 'node:crypto'
import { API_TOKEN_MASK_LENGTH, API_TOKEN_MESSAGES, API_TOKEN_PATTERN, API_TOKEN_PREFIX, AUTH_MESSAGES } from '@citrus/contracts'
import type { FastifyRequest } from 'fastify'
import { unauthorized } from '../lib/errors.js'
import type { BearerCredentialResolver } from '../plugins/auth.js'
import { userPrincipal, type UserPrincipal } from './principal.js'

/** last_used_at is written at most this often per key, so a busy key does not write on every call. */
export const LAST_USED_RESOLUTION_MS = 60_000

/** A new key: 'sk-' + 48 base64url characters (36 random bytes, 288 bits). */
export function generateApiKey(): string {
  return API_TOKEN_PREFIX + randomBytes(36).toString('base64url')
}

/** The key is high-entropy, so a plain SHA-256 is enough to store it (no salt or slow hash needed). */
export function hashApiKey(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** The leading fragment of the secret shown in lists ('sk-' + fragment + '...'). */
export function maskOf(token: string): string {
  return token.slice(API_TOKEN_PREFIX.length, API_TOKEN_PREFIX.length + API_TOKEN_MASK_LENGTH)
}

/**
 * `Authorization: Bearer sk-...`: the key acts as its owner, with the owner's current role and
 * company, so every role, product and company check applies unchanged. Refused (401) at once when
 * the key is revoked, the owner is deactivated or the owner's company is no longer the key's.
 */
export const apiKeyResolver: BearerCredentialResolver = {
  name: 'api_key',
  accepts: (token) => token.startsWith(API_TOKEN_PREFIX),
  async resolve(token: string, request: FastifyRequest): Promise<UserPrincipal> {
    if (!API_TOKEN_PATTERN.test(token)) throw unauthorized(AUTH_MESSAGES.invalidApiKey)
    const { prisma } = request.server.db
    const key = await prisma.apiToken.findUnique({
      where: { token_hash: hashApiKey(token) },
      include: { user: { include: { company: { select: { company_name: true } } } } },
    })
    if (!key) throw unauthorized(AUTH_MESSAGES.invalidApiKey)
    if (key.revoked_at) throw unauthorized(API_TOKEN_MESSAGES.revoked)
    const { user } = key
    if (!user.is_active || user.company_id !== key.company_id) throw unauthorized(API_TOKEN_MESSAGES.ownerInactive)
    const now = Date.now()
    if (!key.last_used_at || now - key.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
      // conditional, so concurrent calls of one key write once
      await prisma.apiToken.updateMany({
        where: { id: key.id, OR: [{ last_used_at: null }, { last_used_at: { lt: new Date(now - LAST_USED_RESOLUTION_MS) } }] },
        data: { last_used_at: new Date(now) },
      })
    }
    return userPrincipal(user, 'api_key', key.id)
  },
}
