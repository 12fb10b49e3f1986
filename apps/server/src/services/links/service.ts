import {
  SHARE_MESSAGES,
  type createShareableUrlRequestSchema,
  type Role,
  type ShareableLinkRecord,
  type ShareableLinkValidationResponse,
} from '@citrus/contracts'
import type { z } from 'zod'
import type { Principal, UserPrincipal } from '../../auth/principal.js'
import { shareIdOfExpiredToken, verifyShareToken } from '../../auth/tokens.js'
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js'
import { badRequest, forbidden, notFound, unauthorized } from '../../lib/errors.js'
import { linkAdmitsUser } from '../../plugins/auth.js'
import { isLinkExpired, linkUrl, toRecord, urlTypeOf } from './links.js'

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Staff create and manage links. Members are plan consumers: a link lets anonymous holders call
 * endpoints on the company's credits, so members do not mint them.
 */
export const SHARE_MANAGER_ROLES: readonly Role[] = ['admin', 'citrus', 'user']

export type CreateLinkInput = z.output<typeof createShareableUrlRequestSchema>

/** Shareable links (spec 3 §5, docs/decisions/0023): their rules of creation, listing, validation and revocation. */
export class LinkService {
  constructor(
    private readonly prisma: PrismaClient,
    /** signs the links' tokens */
    private readonly secret: string,
    /** the origin every link points at (PUBLIC_URL) */
    private readonly publicUrl: string,
  ) {}

  async create(user: UserPrincipal, body: CreateLinkInput): Promise<{ id: string; url: string }> {
    // spec 3 §5: a verification is checked against the link's records; with no invited contact whoever holds the
    // link would verify their own and pass (issue 32)
    if (body.requires_email_verification && !body.invite_email) {
      const message = SHARE_MESSAGES.emailVerificationNeedsInvite
      throw badRequest(message, [{ path: 'body.invite_email', message }])
    }
    if (body.requires_phone_verification && !body.invite_phone) {
      const message = SHARE_MESSAGES.phoneVerificationNeedsInvite
      throw badRequest(message, [{ path: 'body.invite_phone', message }])
    }
    const days = body.expiration_days ?? null
    const link = await this.prisma.shareableLink.create({
      data: {
        company_id: user.company_id,
        created_by_user_id: user.user_id,
        url: body.url ?? null,
        url_type: body.url_type,
        expiration_days: days && days > 0 ? days : null,
        expires_at: days && days > 0 ? new Date(Date.now() + days * DAY_MS) : null,
        client_routes: body.client_routes,
        api_endpoints: body.api_endpoints,
        incoming_url: body.incoming_url ?? null,
        ...(body.initial_query_params == null ? {} : { initial_query_params: body.initial_query_params as Prisma.InputJsonValue }),
        authorized_user_ids: body.authorized_user_ids ?? [],
        invite_email: body.invite_email?.toLowerCase() ?? null,
        invite_phone: body.invite_phone ?? null,
        requires_email_verification: body.requires_email_verification,
        requires_phone_verification: body.requires_phone_verification,
        requires_account_creation: body.requires_account_creation,
        role: body.role ?? null,
      },
    })
    return { id: link.id, url: await linkUrl(this.secret, this.publicUrl, link) }
  }

  /** The links the user created in their company, newest first (at most 500). */
  async list(user: UserPrincipal): Promise<ShareableLinkRecord[]> {
    const links = await this.prisma.shareableLink.findMany({
      where: { created_by_user_id: user.user_id, company_id: user.company_id },
      orderBy: { created_at: 'desc' },
      take: 500,
    })
    return Promise.all(links.map((link) => toRecord(this.secret, this.publicUrl, link)))
  }

  /** What a token's link allows; an expired token's link is still described (is_expired). */
  async validate(token: string, caller: Principal | null): Promise<ShareableLinkValidationResponse> {
    const verified = await verifyShareToken(token, this.secret)
    const id = verified.ok ? verified.claims.id : verified.reason === 'expired' ? await shareIdOfExpiredToken(token, this.secret) : null
    const link = id ? await this.prisma.shareableLink.findUnique({ where: { id } }) : null
    if (!link) throw unauthorized(SHARE_MESSAGES.invalidToken)
    // the same rule as every route the link opens (plugins/auth.ts): no role is exempt from the link's list
    if (caller?.kind === 'user' && !linkAdmitsUser(link.authorized_user_ids, caller.user_id)) {
      throw forbidden(SHARE_MESSAGES.userNotAuthorized)
    }
    return {
      url_type: urlTypeOf(link.url_type),
      role: link.role,
      requires_phone_verification: link.requires_phone_verification,
      requires_email_verification: link.requires_email_verification,
      requires_account_creation: link.requires_account_creation,
      authorized_user_ids: link.authorized_user_ids.length > 0 ? link.authorized_user_ids : null,
      is_expired: !verified.ok || isLinkExpired(link),
      client_routes: link.client_routes,
    }
  }

  /** Revokes a link: its creator, an admin of its company, or citrus staff (another company's link is not found). */
  async revoke(user: UserPrincipal, shareId: string): Promise<{ id: string; revoked_at: string; message: string }> {
    const link = await this.prisma.shareableLink.findUnique({ where: { id: shareId } })
    const sameCompany = link?.company_id === user.company_id
    const visible = link && (user.role === 'citrus' || sameCompany)
    // another company's link is indistinguishable from a missing one
    if (!link || !visible) throw notFound(SHARE_MESSAGES.notFound)
    const mayRevoke = user.role === 'citrus' || link.created_by_user_id === user.user_id || (user.role === 'admin' && sameCompany)
    if (!mayRevoke) throw forbidden(SHARE_MESSAGES.revokeDenied)
    const revoked = link.revoked_at
      ? link
      : await this.prisma.shareableLink.update({
          where: { id: link.id },
          data: { revoked_at: new Date(), revoked_by_user_id: user.user_id },
        })
    return { id: revoked.id, revoked_at: (revoked.revoked_at ?? new Date()).toISOString(), message: SHARE_MESSAGES.revoked }
  }
}
