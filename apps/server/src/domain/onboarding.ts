import { randomBytes } from 'node:crypto'
import {
  ADMIN_INVITABLE_ROLES,
  COMPANY_MESSAGES,
  EMAIL_PATTERN,
  INVITATION_TTL_SECONDS,
  ONBOARDING_MESSAGES,
  ONBOARDING_ROLES,
  type Role,
} from '@citrus/contracts'
import type { UserPrincipal } from '../auth/principal.js'
import { hashToken } from '../auth/tokens.js'
import type { PrismaClient } from '../db/database.js'
import type { Company, Prisma } from '../generated/prisma/client.js'
import { badRequest, conflict, forbidden, notFound } from '../lib/errors.js'
import type { Outbox } from '../services/outbox.js'
import { onboardingEmail } from './account-emails.js'
import { CLI_ACTOR, apiActor, recordAudit } from './audit.js'
import { normalizeEmail } from './users.js'

export interface InvitationInput {
  email: string
  company_activation_key: string
  role: Role
  is_trial: boolean
}

/** A new invitation token: 32 random bytes, base64url (43 characters); only its SHA-256 hash is stored. */
export const newInvitationToken = () => randomBytes(32).toString('base64url')

/** The sign-up link of an invitation: the activation key fills the form, the token proves the mailbox. */
export function invitationLink(publicUrl: string, activationKey: string, token: string): string {
  return `${publicUrl}/sign-up?activation_key=${encodeURIComponent(activationKey)}&invitation=${encodeURIComponent(token)}`
}

/**
 * Onboarding invitations (spec 1 §6, §7; docs/decisions/0012). An admin invites user or admin into
 * their own company; citrus also citrus, into any company. One pending invitation per address and
 * company: a new e-mail replaces the earlier role and token (the earlier link stops working).
 */
interface InvitationTarget {
  email: string
  company: Pick<Company, 'id' | 'activation_key'>
  role: Role
}

export class OnboardingService {
  constructor(
    private readonly prisma: PrismaClient,
    /** null: links are handed over by the caller (the CLI prints them) */
    private readonly outbox: Outbox | null,
    private readonly publicUrl: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Creates the pending invitation, or replaces role, token and expiry of the pending one; the link carries the new token. */
  private async prepare(tx: Prisma.TransactionClient, target: InvitationTarget) {
    const token = newInvitationToken()
    const now = this.now()
    const fields = {
      role: target.role,
      created_at: now,
      token_hash: hashToken(token),
      expires_at: new Date(now.getTime() + INVITATION_TTL_SECONDS * 1000),
    }
    const pending = await tx.onboardingInvitation.findFirst({
      where: { email: target.email, company_id: target.company.id, accepted_at: null },
      orderBy: { created_at: 'desc' },
    })
    const invitation = pending
      ? await tx.onboardingInvitation.update({ where: { id: pending.id }, data: fields })
      : await tx.onboardingInvitation.create({ data: { email: target.email, company_id: target.company.id, ...fields } })
    return { invitation, link: invitationLink(this.publicUrl, target.company.activation_key, token) }
  }

  private async refuseMember(email: string) {
    if (await this.prisma.user.findUnique({ where: { email }, select: { id: true } })) throw conflict(ONBOARDING_MESSAGES.alreadyMember)
  }

  /** POST /admin/email/onboarding: checks the caller's rights, then e-mails the invitation link. */
  async invite(principal: UserPrincipal, input: InvitationInput): Promise<{ message_id: string }> {
    const isCitrus = principal.role === 'citrus'
    const { company_activation_key: key, role, is_trial } = input
    const email = normalizeEmail(input.email)
    if (!isCitrus && !(ADMIN_INVITABLE_ROLES as readonly string[]).includes(role)) throw forbidden(ONBOARDING_MESSAGES.roleNotAllowed)
    const company = await this.prisma.company.findUnique({
      where: { activation_key: key },
      select: { id: true, company_name: true, activation_key: true },
    })
    if (!isCitrus) {
      // an admin may onboard into their own company only; whether another key exists is not revealed
      if (!company || company.id !== principal.company_id) throw forbidden(ONBOARDING_MESSAGES.notYourCompany)
    } else if (!company) {
      throw badRequest(ONBOARDING_MESSAGES.unknownKey, [{ path: 'body.company_activation_key', message: ONBOARDING_MESSAGES.unknownKey }])
    }
    await this.refuseMember(email)
    const outbox = this.outbox
    if (!outbox) throw new Error('OnboardingService.invite needs the outbox')
    const message = await this.prisma.$transaction(async (tx) => {
      const { invitation, link } = await this.prepare(tx, { email, company, role })
      const queued = await outbox.enqueue(
        onboardingEmail({
          to: email,
          companyName: company.company_name,
          role,
          invitedBy: principal.email,
          link,
          isTrial: is_trial,
          validDays: INVITATION_TTL_SECONDS / 86_400,
        }),
        tx,
      )
      await recordAudit(tx, apiActor(principal), {
        action: 'onboarding_email.send',
        company_id: company.id,
        target_type: 'onboarding_invitation',
        target_id: invitation.id,
        details: { email, role, is_trial, message_id: queued.id },
      })
      return queued
    })
    return { message_id: message.id }
  }

  /** `user invite` of the operators' CLI: any role into any company; the link is returned to be handed over, not e-mailed. */
  async issueLink(input: {
    email: string
    company_id: number
    role: Role
  }): Promise<{ invitation_id: number; link: string; expires_at: Date }> {
    const email = normalizeEmail(input.email)
    if (!EMAIL_PATTERN.test(email)) throw badRequest(ONBOARDING_MESSAGES.emailInvalid)
    if (!(ONBOARDING_ROLES as readonly string[]).includes(input.role)) throw badRequest(ONBOARDING_MESSAGES.roleInvalid)
    const company = await this.prisma.company.findUnique({ where: { id: input.company_id }, select: { id: true, activation_key: true } })
    if (!company) throw notFound(COMPANY_MESSAGES.notFound(input.company_id))
    await this.refuseMember(email)
    return this.prisma.$transaction(async (tx) => {
      const { invitation, link } = await this.prepare(tx, { email, company, role: input.role })
      await recordAudit(tx, CLI_ACTOR, {
        action: 'onboarding_email.send',
        company_id: company.id,
        target_type: 'onboarding_invitation',
        target_id: invitation.id,
        details: { email, role: input.role, delivery: 'link printed by the CLI' },
      })
      return { invitation_id: invitation.id, link, expires_at: invitation.expires_at! }
    })
  }
}
