import { API_TOKEN_MESSAGES, API_TOKEN_NAME_MAX, ERROR_CODES, MAX_API_TOKENS_PER_USER, type ApiToken } from '@citrus/contracts'
import { generateApiKey, hashApiKey, maskOf } from '../auth/api-keys.js'
import type { PrismaClient } from '../db/database.js'
import type { Prisma, User } from '../generated/prisma/client.js'
import { AppError, badRequest, forbidden, notFound } from '../lib/errors.js'
import { recordAudit, type AuditActor } from './audit.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const withOwner = { user: { select: { email: true } } } as const

/** A key's row with its owner's email, as Prisma returns it for `include: withOwner`. */
type TokenRow = Prisma.ApiTokenGetPayload<{ include: typeof withOwner }>

export function toApiToken(row: TokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    masked_token: row.prefix,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    user_id: row.user_id,
    user_email: row.user.email,
    company_id: row.company_id,
  }
}

/** Revokes every active key of a user (deactivation); use inside the caller's transaction. */
export async function revokeKeysOfUser(db: Prisma.TransactionClient | PrismaClient, userId: number): Promise<number> {
  const result = await db.apiToken.updateMany({ where: { user_id: userId, revoked_at: null }, data: { revoked_at: new Date() } })
  return result.count
}

/**
 * API keys, shared by the API (/admin/api-token) and the operators' CLI (`apikey ...`).
 * A key belongs to a user and to that user's company; it acts as the user.
 */
export class ApiTokenService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly actor: AuditActor,
  ) {}

  /** Creates a key for a user; the result holds the full key, which is never available again. */
  async create(input: { user_id: number; name?: string | null; company_id?: number | null }): Promise<ApiToken & { token: string }> {
    const name = input.name?.trim() || null
    if (name !== null && name.length > API_TOKEN_NAME_MAX)
      throw badRequest(`The key name may have at most ${API_TOKEN_NAME_MAX} characters`)
    const token = generateApiKey()
    const row = await this.prisma.$transaction(async (tx) => {
      // serialises concurrent creates of one user, so the maximum holds under races
      const locked = await tx.$queryRaw<Pick<User, 'id'>[]>`SELECT id FROM users WHERE id = ${input.user_id} FOR UPDATE`
      if (locked.length === 0) throw notFound(`User ${input.user_id} not found`)
      const user = await tx.user.findUniqueOrThrow({
        where: { id: input.user_id },
        select: { id: true, company_id: true, is_active: true },
      })
      if (!user.is_active) throw badRequest('API keys cannot be created for a deactivated user')
      if (input.company_id != null && input.company_id !== user.company_id) throw forbidden(API_TOKEN_MESSAGES.ownCompanyOnly)
      const active = await tx.apiToken.count({ where: { user_id: user.id, company_id: user.company_id, revoked_at: null } })
      if (active >= MAX_API_TOKENS_PER_USER) throw new AppError(409, ERROR_CODES.CONFLICT, API_TOKEN_MESSAGES.maxTokens)
      const created = await tx.apiToken.create({
        data: { user_id: user.id, company_id: user.company_id, name, token_hash: hashApiKey(token), prefix: maskOf(token) },
        include: withOwner,
      })
      await recordAudit(tx, this.actor, {
        action: 'api_key.create',
        company_id: created.company_id,
        target_type: 'api_token',
        target_id: created.id,
        details: { name, owner_user_id: created.user_id, owner_email: created.user.email, masked_token: created.prefix },
      })
      return created
    })
    return { ...toApiToken(row), token }
  }

  /** Active keys, newest first. */
  async list(filter: { company_id?: number; user_id?: number } = {}): Promise<ApiToken[]> {
    const rows = await this.prisma.apiToken.findMany({
      where: {
        revoked_at: null,
        ...(filter.company_id !== undefined ? { company_id: filter.company_id } : {}),
        ...(filter.user_id !== undefined ? { user_id: filter.user_id } : {}),
      },
      include: withOwner,
      orderBy: [{ created_at: 'desc' }, { id: 'asc' }],
    })
    return rows.map(toApiToken)
  }

  /** Revokes an active key; `company_id` confines the lookup (an admin manages only their company's keys). */
  async revoke(id: string, scope: { company_id?: number } = {}): Promise<ApiToken> {
    if (!UUID.test(id)) throw notFound(API_TOKEN_MESSAGES.notFound)
    return this.prisma.$transaction(async (tx) => {
      const now = new Date()
      const claimed = await tx.apiToken.updateMany({
        where: { id, revoked_at: null, ...(scope.company_id !== undefined ? { company_id: scope.company_id } : {}) },
        data: { revoked_at: now },
      })
      if (claimed.count !== 1) throw notFound(API_TOKEN_MESSAGES.notFound)
      const row = await tx.apiToken.findUniqueOrThrow({ where: { id }, include: withOwner })
      await recordAudit(tx, this.actor, {
        action: 'api_key.revoke',
        company_id: row.company_id,
        target_type: 'api_token',
        target_id: row.id,
        details: { name: row.name, owner_user_id: row.user_id, owner_email: row.user.email, masked_token: row.prefix },
      })
      return toApiToken(row)
    })
  }
}
