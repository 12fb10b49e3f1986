import { randomUUID } from 'node:crypto'
import { MESSAGES, PASSWORD_RESET_TTL_SECONDS, USER_MESSAGES, meetsServerPasswordRule, normalizeUsPhone } from '@citrus/contracts'
import type { FastifyBaseLogger } from 'fastify'
import { hashPassword, verifyPassword } from '../auth/password.js'
import type { CredentialLimiters } from '../auth/rate-limits.js'
import { hashToken, type Tokens } from '../auth/tokens.js'
import type { PrismaClient } from '../db/database.js'
import { badRequest, unauthorized } from '../lib/errors.js'
import { passwordChangedEmail, passwordResetEmail } from './account-emails.js'
import type { Outbox } from '../services/outbox.js'
import { normalizeEmail } from './users.js'

/** What the accounts services need from the app. */
export interface AccountContext {
  prisma: PrismaClient
  tokens: Tokens
  outbox: Outbox
  publicUrl: string
  limits: CredentialLimiters
  log: FastifyBaseLogger
}

// Verifying against a throwaway hash when the e-mail is unknown keeps both answers equally slow.
let dummyHash: Promise<string> | null = null
const timingDummyHash = () => (dummyHash ??= hashPassword(randomUUID()))

export function weakPassword(field: string) {
  return badRequest(MESSAGES.passwordWeak, [{ path: `body.${field}`, message: MESSAGES.passwordWeak }])
}

/**
 * Sign-in, password reset and the existence check of the accounts endpoints (spec 1 §7), each under
 * its credential limiter (auth/rate-limits.ts). `address` is the client address (request.ip).
 */
export class AccountService {
  /** reset e-mails being prepared after the answer was sent */
  private readonly background = new Set<Promise<void>>()

  constructor(private readonly ctx: AccountContext) {}

  async login(address: string, input: { email: string; password: string }): Promise<{ token: string }> {
    const email = normalizeEmail(input.email)
    return this.ctx.limits.login.attempt(address, email, async () => {
      const user = await this.ctx.prisma.user.findUnique({ where: { email }, include: { company: { select: { company_name: true } } } })
      const valid = await verifyPassword(input.password, user ? user.password_hash : await timingDummyHash())
      if (!user || !valid || !user.is_active) throw unauthorized(USER_MESSAGES.invalidCredentials)
      const token = this.ctx.tokens.signLogin({
        id: user.id,
        email: user.email,
        company_id: user.company_id,
        company_name: user.company.company_name,
        role: user.role,
        phone_number: user.phone_number,
      })
      return { failed: false, result: { token } }
    })
  }

  /**
   * Answers at once with the id the e-mail will have; the look-up, the token and the outbox row are
   * written afterwards, so a known and an unknown address take the same time to answer (issue 9 §2).
   * An unknown or inactive address gets an id that looks like any other, and no message.
   */
  async requestPasswordReset(address: string, input: { email: string }): Promise<{ message_id: string }> {
    const email = normalizeEmail(input.email)
    return this.ctx.limits.passwordResetEmail.attempt(
      address,
      email,
      async () => {
        const messageId = randomUUID()
        const task = this.sendResetEmail(email, messageId)
          .catch((error: unknown) => this.ctx.log.error({ err: error }, 'password reset e-mail failed'))
          .finally(() => this.background.delete(task))
        this.background.add(task)
        return { failed: false, result: { message_id: messageId } }
      },
      { countAll: true },
    )
  }

  private async sendResetEmail(email: string, messageId: string): Promise<void> {
    const user = await this.ctx.prisma.user.findUnique({ where: { email }, select: { id: true, email: true, is_active: true } })
    if (!user || !user.is_active) return
    const { token, expiresAt } = this.ctx.tokens.signReset(user.id)
    const link = `${this.ctx.publicUrl}/password-reset?token=${encodeURIComponent(token)}`
    await this.ctx.prisma.$transaction(async (tx) => {
      await tx.passwordResetToken.create({ data: { user_id: user.id, token_hash: hashToken(token), expires_at: expiresAt } })
      await this.ctx.outbox.enqueue({ ...passwordResetEmail(user.email, link, PASSWORD_RESET_TTL_SECONDS), id: messageId }, tx)
    })
  }

  /** Resolves when the reset e-mails answered so far are in the outbox (tests; shutdown). */
  async settled(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background])
  }

  async resetPassword(address: string, input: { new_password: string; temp_jwt_token: string }): Promise<{ message_id: string }> {
    const { new_password, temp_jwt_token } = input
    if (!meetsServerPasswordRule(new_password)) throw weakPassword('new_password')
    return this.ctx.limits.passwordReset.attempt(address, null, async () => {
      const invalid = () => badRequest(USER_MESSAGES.resetTokenInvalid)
      const verified = this.ctx.tokens.verifyReset(temp_jwt_token)
      if (!verified.ok) throw invalid()
      const password_hash = await hashPassword(new_password)
      const now = new Date()
      const message = await this.ctx.prisma.$transaction(async (tx) => {
        const record = await tx.passwordResetToken.findUnique({ where: { token_hash: hashToken(temp_jwt_token) } })
        if (!record || record.user_id !== Number(verified.claims.sub)) throw invalid()
        // single use, even under concurrent submissions: only one update can claim the row
        const claimed = await tx.passwordResetToken.updateMany({
          where: { id: record.id, used_at: null, expires_at: { gt: now } },
          data: { used_at: now },
        })
        if (claimed.count !== 1) throw invalid()
        const user = await tx.user.update({ where: { id: record.user_id }, data: { password_hash } })
        // any other outstanding reset link of this user stops working too
        await tx.passwordResetToken.updateMany({ where: { user_id: user.id, used_at: null }, data: { used_at: now } })
        return this.ctx.outbox.enqueue(passwordChangedEmail(user.email), tx)
      })
      return { failed: false, result: { message_id: message.id } }
    })
  }

  /** Whether an active account has the e-mail or US phone; a look-up that finds nobody counts as a failure. */
  async verifyContact(address: string, input: { email?: string | null; phone_number?: string | null }): Promise<{ exists: boolean }> {
    const email = input.email ? normalizeEmail(input.email) : null
    const rawPhone = input.phone_number?.trim() || null
    if (!email && !rawPhone) throw badRequest(USER_MESSAGES.verifyNeedsContact)
    let phone: string | null = null
    if (rawPhone) {
      const normalized = normalizeUsPhone(rawPhone)
      if (!normalized.ok) throw badRequest(normalized.message, [{ path: 'body.phone_number', message: normalized.message }])
      phone = normalized.e164
    }
    return this.ctx.limits.verify.attempt(address, email ?? phone, async () => {
      const match = await this.ctx.prisma.user.findFirst({
        where: { is_active: true, OR: [...(email ? [{ email }] : []), ...(phone ? [{ phone_number: phone }] : [])] },
        select: { id: true },
      })
      return { failed: match === null, result: { exists: match !== null } }
    })
  }
}
