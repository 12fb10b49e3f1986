import { randomInt } from 'node:crypto'
import {
  ACCESS_MESSAGES,
  ERROR_CODES,
  EMAIL_PATTERN,
  MESSAGES,
  VERIFICATION_CODE_TTL_SECONDS,
  VERIFICATION_MAX_ATTEMPTS,
  VERIFICATION_MAX_SENDS,
  VERIFIED_LINK_TTL_SECONDS,
  memberPasswordError,
  normalizeUsPhone,
} from '@citrus/contracts'
import { hashToken, type Tokens } from '../auth/tokens.js'
import type { PrismaClient } from '../db/database.js'
import type { ShareableLink } from '../generated/prisma/client.js'
import { AppError, badRequest, forbidden, unauthorized } from '../lib/errors.js'
import type { Outbox } from '../services/outbox.js'
import { createAccount, normalizeEmail } from './users.js'

type Channel = 'email' | 'phone'

export interface MemberAccessContext {
  prisma: PrismaClient
  tokens: Tokens
  outbox: Outbox
  now?: () => Date
}

const codeHash = (verificationId: string, code: string) => hashToken(`${verificationId}:${code}`)

const codeUsed = () => badRequest(ACCESS_MESSAGES.codeUsed, [{ path: 'body.code', message: ACCESS_MESSAGES.codeUsed }])

/** The page of the member access flow (spec 3 §2.3, §4.2): the only one whose links may lead to a sign-up. */
export const MEMBER_ACCESS_ROUTE = '/member-recommendations'

type LinkFields = Pick<
  ShareableLink,
  'url_type' | 'client_routes' | 'invite_email' | 'invite_phone' | 'requires_email_verification' | 'requires_phone_verification'
>

/**
 * A link made for member access (spec 3 §4.2, §6): not public, opens /member-recommendations, and names an
 * invited contact or requires a verification, each verification bound to an invited contact (issue 32). Other
 * links (a provider cost page's public share, a link to another page) never create accounts.
 */
export function isMemberAccessLink(link: LinkFields): boolean {
  const opensMemberPage = link.client_routes.some((route) => route.replace(/\/+$/, '') === MEMBER_ACCESS_ROUTE)
  const invited = link.invite_email !== null || link.invite_phone !== null
  const verified = link.requires_email_verification || link.requires_phone_verification
  const bound =
    (!link.requires_email_verification || link.invite_email !== null) && (!link.requires_phone_verification || link.invite_phone !== null)
  return link.url_type !== 'public' && opensMemberPage && (invited || verified) && bound
}

/**
 * Whether a link sends codes on a channel (issue 32): a code goes only to the link's invited contact. An SMS needs
 * the link's invite_phone. An e-mail needs its invite_email, except on an invite that requires no e-mail
 * verification, whose sign-up step (spec 3 §4.2 Invite: Email Verification) checks the invitee's own address; that
 * grants nothing the link does not already give. A link that requires a channel and names no contact (made before
 * creation refused it) sends nothing on it.
 */
export function codeChannelOpen(link: LinkFields, channel: Channel): boolean {
  if (channel === 'phone') return link.invite_phone !== null
  if (link.invite_email !== null) return true
  return link.url_type === 'invite' && !link.requires_email_verification
}

/**
 * Verification codes and member sign-up for shareable links (docs/decisions/0023). A code proves the holder
 * of a link reads the link's e-mail or phone; the confirmed link token names the passed verifications (`vf`),
 * and the auth layer grants a verification-gated link only when the server recorded them.
 */
export class MemberAccessService {
  private readonly now: () => Date

  constructor(private readonly ctx: MemberAccessContext) {
    this.now = ctx.now ?? (() => new Date())
  }

  /** The live link a token names; 401 'Invalid or expired token' otherwise. */
  async linkOf(token: string): Promise<{ link: ShareableLink; verifiedIds: string[] }> {
    const verified = this.ctx.tokens.verifyShare(token)
    if (!verified.ok) throw unauthorized(ACCESS_MESSAGES.invalidToken)
    const link = await this.ctx.prisma.shareableLink.findUnique({ where: { id: verified.claims.id } })
    if (!link || link.revoked_at || (link.expires_at && link.expires_at <= this.now())) throw unauthorized(ACCESS_MESSAGES.invalidToken)
    return { link, verifiedIds: verified.claims.vf ?? [] }
  }

  /** The contact a channel is checked against: what the member typed, normalised, and the link's record. */
  private contactFor(link: ShareableLink, channel: Channel, input: { email?: string | null; phone_number?: string | null }): string {
    if (channel === 'email') {
      const email = input.email ? normalizeEmail(input.email) : ''
      if (email === '') throw badRequest(MESSAGES.emailRequired, [{ path: 'body.email', message: MESSAGES.emailRequired }])
      if (!EMAIL_PATTERN.test(email)) throw badRequest(MESSAGES.emailInvalid, [{ path: 'body.email', message: MESSAGES.emailInvalid }])
      if (link.invite_email && normalizeEmail(link.invite_email) !== email) {
        throw badRequest(ACCESS_MESSAGES.emailMismatch, [{ path: 'body.email', message: ACCESS_MESSAGES.emailMismatch }])
      }
      return email
    }
    const phone = normalizeUsPhone(input.phone_number ?? '')
    if (!phone.ok) throw badRequest(phone.message, [{ path: 'body.phone_number', message: phone.message }])
    if (link.invite_phone && link.invite_phone !== phone.e164) {
      throw badRequest(ACCESS_MESSAGES.phoneMismatch, [{ path: 'body.phone_number', message: ACCESS_MESSAGES.phoneMismatch }])
    }
    return phone.e164
  }

  /** Sends (or resends) a code; the previous unconfirmed code of the channel stops working. */
  async sendCode(token: string, input: { channel: Channel; email?: string | null; phone_number?: string | null }) {
    const { link } = await this.linkOf(token)
    if (!codeChannelOpen(link, input.channel)) {
      const message = input.channel === 'email' ? ACCESS_MESSAGES.emailChannelNotUsed : ACCESS_MESSAGES.phoneChannelNotUsed
      throw badRequest(message, [{ path: 'body.channel', message }])
    }
    const contact = this.contactFor(link, input.channel, input)
    const now = this.now()
    const since = new Date(now.getTime() - VERIFICATION_CODE_TTL_SECONDS * 1000)
    const recent = await this.ctx.prisma.shareVerification.count({
      where: { link_id: link.id, channel: input.channel, created_at: { gt: since } },
    })
    if (recent >= VERIFICATION_MAX_SENDS) throw new AppError(429, ERROR_CODES.RATE_LIMITED, ACCESS_MESSAGES.tooManyCodes)
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0')
    const expiresAt = new Date(now.getTime() + VERIFICATION_CODE_TTL_SECONDS * 1000)
    const text = `Your Citrus verification code is ${code}. It expires in 10 minutes.`
    return this.ctx.prisma.$transaction(async (tx) => {
      await tx.shareVerification.updateMany({
        where: { link_id: link.id, channel: input.channel, verified_at: null, superseded: false },
        data: { superseded: true },
      })
      const row = await tx.shareVerification.create({
        data: { link_id: link.id, channel: input.channel, contact, code_hash: '', expires_at: expiresAt },
      })
      const message = await this.ctx.outbox.enqueue(
        input.channel === 'email'
          ? { channel: 'email', recipient: contact, subject: 'Your verification code', body: text, payload: { kind: 'share_verification' } }
          : { channel: 'sms', recipient: contact, body: text, payload: { kind: 'share_verification' } },
        tx,
      )
      await tx.shareVerification.update({ where: { id: row.id }, data: { code_hash: codeHash(row.id, code), message_id: message.id } })
      return { verification_id: row.id, channel: input.channel, expires_at: expiresAt.toISOString(), message_id: message.id }
    })
  }

  /** Checks a code: one use, 5 attempts, 10 minutes; success answers the link token naming every verification passed. */
  async confirmCode(token: string, input: { verification_id: string; code: string }) {
    const { link, verifiedIds } = await this.linkOf(token)
    const row = await this.ctx.prisma.shareVerification.findUnique({ where: { id: input.verification_id } })
    if (!row || row.link_id !== link.id || row.superseded) throw badRequest(ACCESS_MESSAGES.verificationFailed)
    if (row.verified_at !== null) throw codeUsed()
    if (row.attempts >= VERIFICATION_MAX_ATTEMPTS) throw badRequest(ACCESS_MESSAGES.codeLocked)
    if (row.expires_at <= this.now()) throw badRequest(ACCESS_MESSAGES.codeExpired)
    // count the attempt first (atomically), so parallel guesses cannot exceed the limit
    const counted = await this.ctx.prisma.shareVerification.updateMany({
      where: { id: row.id, attempts: { lt: VERIFICATION_MAX_ATTEMPTS }, verified_at: null },
      data: { attempts: { increment: 1 } },
    })
    if (counted.count === 0) {
      const current = await this.ctx.prisma.shareVerification.findUnique({ where: { id: row.id }, select: { verified_at: true } })
      throw current?.verified_at ? codeUsed() : badRequest(ACCESS_MESSAGES.codeLocked)
    }
    if (codeHash(row.id, input.code) !== row.code_hash) {
      const left = VERIFICATION_MAX_ATTEMPTS - row.attempts - 1
      throw badRequest(left > 0 ? ACCESS_MESSAGES.verificationFailed : ACCESS_MESSAGES.codeLocked, [
        { path: 'body.code', message: `${ACCESS_MESSAGES.verificationFailed}: ${left} attempt${left === 1 ? '' : 's'} left` },
      ])
    }
    // one use, across processes: of two confirmations racing with the right code, one UPDATE finds verified_at null
    const used = await this.ctx.prisma.shareVerification.updateMany({
      where: { id: row.id, verified_at: null, superseded: false, expires_at: { gt: this.now() } },
      data: { verified_at: this.now() },
    })
    if (used.count === 0) throw codeUsed()
    const passed = await this.ctx.prisma.shareVerification.findMany({
      where: { id: { in: [...verifiedIds, row.id] }, link_id: link.id, verified_at: { not: null } },
      select: { id: true, channel: true },
    })
    const channels = [...new Set(passed.map((v) => v.channel as Channel))]
    const complete =
      (!link.requires_email_verification || channels.includes('email')) && (!link.requires_phone_verification || channels.includes('phone'))
    const expiresAt = new Date(this.now().getTime() + VERIFIED_LINK_TTL_SECONDS * 1000)
    return {
      token: this.ctx.tokens.signVerifiedShare(
        link,
        passed.map((v) => v.id),
        expiresAt,
      ),
      verified_channels: channels,
      complete,
    }
  }

  /**
   * A member account in the link's company, only through a member-access link ({@link isMemberAccessLink}). A link
   * that requires verification needs its verified token, and the account takes the verified contacts; an invite
   * link takes its invited address.
   */
  async memberSignup(
    token: string,
    input: { email: string; password: string; first_name?: string | null; last_name?: string | null; phone_number?: string | null },
  ) {
    const { link, verifiedIds } = await this.linkOf(token)
    if (!isMemberAccessLink(link)) throw forbidden(ACCESS_MESSAGES.signupNotAllowed)
    const passed = verifiedIds.length
      ? await this.ctx.prisma.shareVerification.findMany({
          where: { id: { in: verifiedIds }, link_id: link.id, verified_at: { not: null } },
        })
      : []
    const verifiedEmail = passed.find((v) => v.channel === 'email')?.contact ?? null
    const verifiedPhone = passed.find((v) => v.channel === 'phone')?.contact ?? null
    if ((link.requires_email_verification && !verifiedEmail) || (link.requires_phone_verification && !verifiedPhone)) {
      throw forbidden(ACCESS_MESSAGES.verificationNeeded)
    }
    const email = normalizeEmail(input.email)
    const expectedEmail = verifiedEmail ?? (link.invite_email ? normalizeEmail(link.invite_email) : null)
    if (expectedEmail && expectedEmail !== email)
      throw badRequest(ACCESS_MESSAGES.emailMismatch, [{ path: 'body.email', message: ACCESS_MESSAGES.emailMismatch }])
    let phone: string | null = null
    if (input.phone_number && input.phone_number.trim() !== '') {
      const normalized = normalizeUsPhone(input.phone_number)
      if (!normalized.ok) throw badRequest(normalized.message, [{ path: 'body.phone_number', message: normalized.message }])
      phone = normalized.e164
    }
    const expectedPhone = verifiedPhone ?? link.invite_phone
    // an invite naming a phone is for that phone (spec 3 §6): a sign-up that neither gives it nor has verified it is
    // refused like a wrong one (a verified phone is the invited one: the code went to it)
    const missingInvitedPhone = link.invite_phone !== null && phone === null && verifiedPhone === null
    if (missingInvitedPhone || (expectedPhone && phone !== null && phone !== expectedPhone)) {
      throw badRequest(ACCESS_MESSAGES.phoneMismatch, [{ path: 'body.phone_number', message: ACCESS_MESSAGES.phoneMismatch }])
    }
    const company = await this.ctx.prisma.company.findUniqueOrThrow({ where: { id: link.company_id }, select: { company_name: true } })
    const user = await createAccount(this.ctx.prisma, {
      email,
      password: input.password,
      company_id: link.company_id,
      role: 'member',
      phone_number: phone ?? expectedPhone ?? null,
      // the access modal's rule (spec 3 §5), not the shell's sign-up rule
      passwordError: memberPasswordError,
    })
    const jwt = this.ctx.tokens.signLogin({
      id: user.id,
      email: user.email,
      company_id: user.company_id,
      company_name: company.company_name,
      role: user.role,
      phone_number: user.phone_number,
    })
    return { jwt_token: jwt, user_id: user.id }
  }
}
