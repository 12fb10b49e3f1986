import { ACTIVATION_KEY_PATTERN, ERROR_CODES, MESSAGES, USER_MESSAGES, meetsServerPasswordRule, type Role } from '@citrus/contracts'
import type { CredentialLimiters } from '../auth/rate-limits.js'
import { hashToken } from '../auth/tokens.js'
import type { PrismaClient } from '../db/database.js'
import { AppError, badRequest } from '../lib/errors.js'
import { createAccount, normalizeEmail } from './users.js'

export interface SignupInput {
  email: string
  password: string
  activation_key: string
  invitation_token?: string | null
}

/**
 * Self-service sign-up (spec 1 §5, docs/decisions/0012): the activation key names the company; the
 * role is `user` unless the sign-up presents the token of a pending invitation for this address and
 * company, which proves control of the invited mailbox. A presented token that does not fit is
 * refused rather than ignored, so an invited person never silently gets a lesser role. An address with
 * a pending invitation (in any company) signs up through the invitation's link only (409 otherwise).
 */
export class SignupService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly limits: CredentialLimiters,
  ) {}

  async signUp(address: string, input: SignupInput): Promise<{ message: string }> {
    const email = normalizeEmail(input.email)
    const key = input.activation_key.trim()
    const invitationToken = input.invitation_token?.trim() || null
    if (!ACTIVATION_KEY_PATTERN.test(key)) {
      throw badRequest(MESSAGES.activationKeyInvalid, [{ path: 'body.activation_key', message: MESSAGES.activationKeyInvalid }])
    }
    if (!meetsServerPasswordRule(input.password)) {
      throw badRequest(MESSAGES.passwordWeak, [{ path: 'body.password', message: MESSAGES.passwordWeak }])
    }
    return this.limits.signup.attempt(address, email, async () => {
      const company = await this.prisma.company.findUnique({ where: { activation_key: key }, select: { id: true } })
      if (!company) {
        throw badRequest(USER_MESSAGES.activationKeyUnknown, [{ path: 'body.activation_key', message: USER_MESSAGES.activationKeyUnknown }])
      }
      const invalidInvitation = () =>
        badRequest(USER_MESSAGES.invitationInvalid, [{ path: 'body.invitation_token', message: USER_MESSAGES.invitationInvalid }])
      let invitation: { id: number; role: Role } | null = null
      if (invitationToken) {
        const found = await this.prisma.onboardingInvitation.findUnique({ where: { token_hash: hashToken(invitationToken) } })
        const usable =
          found &&
          found.email === email &&
          found.company_id === company.id &&
          !found.accepted_at &&
          found.expires_at &&
          found.expires_at.getTime() > Date.now()
        if (!usable) throw invalidInvitation()
        invitation = { id: found.id, role: found.role }
      } else {
        // The key is in every invitation e-mail: with it alone anyone could take an invited address before the
        // invited person does (issue 32 §8). An address with a pending invitation is claimed through its link only.
        const pending = await this.prisma.onboardingInvitation.findFirst({
          where: { email, accepted_at: null, expires_at: { gt: new Date() } },
          select: { id: true },
        })
        if (pending) {
          const field = [{ path: 'body.email', message: USER_MESSAGES.invitationPending }]
          throw new AppError(409, ERROR_CODES.CONFLICT, USER_MESSAGES.invitationPending, field)
        }
      }
      await createAccount(
        this.prisma,
        { email, password: input.password, company_id: company.id, role: invitation?.role ?? 'user' },
        async (tx) => {
          if (!invitation) return
          // single use, also under concurrent sign-ups: only one update can claim the invitation
          const claimed = await tx.onboardingInvitation.updateMany({
            where: { id: invitation.id, accepted_at: null, expires_at: { gt: new Date() } },
            data: { accepted_at: new Date() },
          })
          if (claimed.count !== 1) throw invalidInvitation()
        },
      )
      return { failed: false, result: { message: USER_MESSAGES.signupSuccess } }
    })
  }
}
