import { randomUUID } from 'node:crypto'
import { MESSAGES, PASSWORD_RESET_TTL_SECONDS, USER_MESSAGES, meetsServerPasswordRule, normalizeUsPhone } from '@citrus/contracts'
import type { FastifyBaseLogger } from 'fastify'
import { hashPassword, verifyPassword } from '../auth/password.js'
import type { CredentialLimiters } from '../auth/rate-limits.js'
import { hashToken, type Tokens } from '../auth/tokens.js'
import type { PrismaClient } from '../db/database.js'
import type { MessageOutbox } from '../generated/prisma/client.js'
import { badRequest, unauthorized } from '../lib/errors.js'
import { RESET_REQUEST_KIND, passwordChangedEmail, passwordResetEmail, passwordResetRequest } from './account-emails.js'
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

/** How long after a reset request its e-mail is prepared, with the requests that arrived meanwhile. */
const RESET_BATCH_DELAY_MS = 1_000
/** How often each process looks for requests that no process prepared (one that stopped first). */
const RESET_SWEEP_INTERVAL_MS = 10_000
const RESET_BATCH_SIZE = 100

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
  private resetTimer: NodeJS.Timeout | null = null
  private readonly resetSweep: NodeJS.Timeout
  private resetBatches: Promise<void> = Promise.resolve()

  constructor(private readonly ctx: AccountContext) {
    // Requests recorded by a process that stopped before preparing them are taken over by any other (issue 34 §1).
    this.resetSweep = setInterval(() => void this.prepareResetEmails(), RESET_SWEEP_INTERVAL_MS).unref()
  }

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
        sessions_revoked_at: user.sessions_revoked_at,
      })
      return { failed: false, result: { token } }
    })
  }

  /**
   * The same work for a known and an unknown address (issue 32 §5): the request is recorded in the outbox as a
   * held row (never sent as it is) and answered with that row's id. Nothing else happens before the answer. The
   * look-up, the reset token and the e-mail (which takes over the row's id) follow in a batch, a moment later
   * ({@link prepareResetEmails}); the request of an unknown or inactive address is then deleted, unsent.
   */
  async requestPasswordReset(address: string, input: { email: string }): Promise<{ message_id: string }> {
    const email = normalizeEmail(input.email)
    return this.ctx.limits.passwordResetEmail.attempt(
      address,
      email,
      async () => {
        const recorded = await this.ctx.prisma.messageOutbox.create({
          data: { ...passwordResetRequest(email), status: 'held', scope: this.ctx.outbox.scope },
          select: { id: true },
        })
        this.resetTimer ??= setTimeout(() => {
          this.resetTimer = null
          void this.prepareResetEmails()
        }, RESET_BATCH_DELAY_MS).unref()
        return { failed: false, result: { message_id: recorded.id } }
      },
      { countAll: true },
    )
  }

  /**
   * Prepares the reset e-mails of the requests recorded so far, by this process or any other: the held rows are
   * claimed in PostgreSQL (FOR UPDATE SKIP LOCKED), so each request becomes one e-mail however many processes run.
   * Batches of one process run one after another.
   */
  private prepareResetEmails(): Promise<void> {
    const run = this.resetBatches.then(async () => {
      try {
        while ((await this.prepareBatch()) === RESET_BATCH_SIZE);
      } catch (error) {
        this.ctx.log.error({ err: error }, 'password reset e-mails failed')
      }
    })
    this.resetBatches = run
    return run
  }

  /** One transaction: claims up to RESET_BATCH_SIZE held requests, replaces each with its e-mail or deletes it. */
  private async prepareBatch(): Promise<number> {
    return this.ctx.prisma.$transaction(async (tx) => {
      const batch = await tx.$queryRaw<Pick<MessageOutbox, 'id' | 'recipient'>[]>`
        SELECT id, recipient FROM message_outbox
        WHERE status = 'held' AND payload->>'kind' = ${RESET_REQUEST_KIND}
          AND scope IS NOT DISTINCT FROM ${this.ctx.outbox.scope}
        ORDER BY created_at
        LIMIT ${RESET_BATCH_SIZE}
        FOR UPDATE SKIP LOCKED`
      if (batch.length === 0) return 0
      const users = await tx.user.findMany({
        where: { email: { in: [...new Set(batch.map((request) => request.recipient))] }, is_active: true },
        select: { id: true, email: true },
      })
      const byEmail = new Map(users.map((user) => [user.email, user]))
      await tx.messageOutbox.deleteMany({ where: { id: { in: batch.map((request) => request.id) }, status: 'held' } })
      for (const request of batch) {
        const user = byEmail.get(request.recipient)
        if (!user) continue
        const { token, expiresAt } = this.ctx.tokens.signReset(user.id)
        const link = `${this.ctx.publicUrl}/password-reset?token=${encodeURIComponent(token)}`
        await tx.passwordResetToken.create({ data: { user_id: user.id, token_hash: hashToken(token), expires_at: expiresAt } })
        await this.ctx.outbox.enqueue({ ...passwordResetEmail(user.email, link, PASSWORD_RESET_TTL_SECONDS), id: request.id }, tx)
      }
      return batch.length
    })
  }

  /** Resolves when the reset e-mails requested so far are in the outbox (tests); stops the sweep (shutdown). */
  async settled(): Promise<void> {
    if (this.resetTimer) clearTimeout(this.resetTimer)
    this.resetTimer = null
    await this.prepareResetEmails()
  }

  /** Stops the timers; requests still held are prepared by the next sweep of any process. */
  async stop(): Promise<void> {
    clearInterval(this.resetSweep)
    await this.settled()
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
        // the login tokens issued before the reset stop working at once (issue 32 §6)
        const user = await tx.user.update({ where: { id: record.user_id }, data: { password_hash, sessions_revoked_at: now } })
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
