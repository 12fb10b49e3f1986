import { randomUUID } from 'node:crypto'
import {
  ACTIVATION_KEY_PATTERN,
  MESSAGES,
  PASSWORD_RESET_TTL_SECONDS,
  PRODUCT_GROUPS,
  USER_MESSAGES,
  errorEnvelopeSchema,
  loginRequestSchema,
  loginResponseSchema,
  meetsServerPasswordRule,
  messageIdResponseSchema,
  messageResponseSchema,
  normalizeUsPhone,
  passwordResetEmailRequestSchema,
  passwordResetRequestSchema,
  signupRequestSchema,
  userInfoSchema,
  verifyUserRequestSchema,
  verifyUserResponseSchema,
  type ProductGroup,
} from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { hashPassword, verifyPassword } from '../../auth/password.js'
import { normalizeEmail } from '../../domain/users.js'
import { RATE_LIMITS, rateLimit } from '../../auth/rate-limits.js'
import { hashToken, signLoginToken, signResetToken, verifyResetToken } from '../../auth/tokens.js'
import { Prisma } from '../../generated/prisma/client.js'
import { badRequest, conflict, unauthorized } from '../../lib/errors.js'
import { userOf } from '../../plugins/auth.js'
import { passwordChangedEmail, passwordResetEmail } from './emails.js'

const tags = ['users']

// Verifying against a throwaway hash when the e-mail is unknown keeps both answers equally slow.
let dummyHash: Promise<string> | null = null
const timingDummyHash = () => (dummyHash ??= hashPassword(randomUUID()))


export function sortProductGroups(groups: Iterable<ProductGroup>): ProductGroup[] {
  const held = new Set(groups)
  return PRODUCT_GROUPS.filter((group) => held.has(group))
}

function weakPassword(field: string) {
  return badRequest(MESSAGES.passwordWeak, [{ path: `body.${field}`, message: MESSAGES.passwordWeak }])
}

export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  const { prisma } = app.db

  app.post(
    '/login',
    {
      config: { rateLimit: rateLimit(RATE_LIMITS.login, { perEmail: true }) },
      schema: {
        tags,
        summary: 'Sign in with e-mail and password; returns a login JWT valid for 12 hours',
        body: loginRequestSchema,
        response: { 200: loginResponseSchema, 400: errorEnvelopeSchema, 401: errorEnvelopeSchema, 429: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const email = normalizeEmail(request.body.email)
      const user = await prisma.user.findUnique({ where: { email }, include: { company: { select: { company_name: true } } } })
      const valid = user ? await verifyPassword(request.body.password, user.password_hash) : await verifyPassword(request.body.password, await timingDummyHash())
      if (!user || !valid || !user.is_active) throw unauthorized(USER_MESSAGES.invalidCredentials)
      const token = await signLoginToken(app.config.jwtSecret, {
        id: user.id,
        email: user.email,
        company_id: user.company_id,
        company_name: user.company.company_name,
        role: user.role,
        phone_number: user.phone_number,
      })
      return { token }
    },
  )

  app.post(
    '/user-signup',
    {
      config: { rateLimit: rateLimit(RATE_LIMITS.signup) },
      schema: {
        tags,
        summary: "Create an account in the company whose activation key is given; the role is that of a pending invitation, else user",
        body: signupRequestSchema,
        response: { 200: messageResponseSchema, 400: errorEnvelopeSchema, 409: errorEnvelopeSchema, 429: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const { password, activation_key } = request.body
      const email = normalizeEmail(request.body.email)
      if (!ACTIVATION_KEY_PATTERN.test(activation_key)) {
        throw badRequest(MESSAGES.activationKeyInvalid, [{ path: 'body.activation_key', message: MESSAGES.activationKeyInvalid }])
      }
      if (!meetsServerPasswordRule(password)) throw weakPassword('password')
      const company = await prisma.company.findUnique({ where: { activation_key }, select: { id: true } })
      if (!company) {
        throw badRequest(USER_MESSAGES.activationKeyUnknown, [{ path: 'body.activation_key', message: USER_MESSAGES.activationKeyUnknown }])
      }
      if (await prisma.user.findUnique({ where: { email }, select: { id: true } })) throw conflict(USER_MESSAGES.emailTaken)
      const password_hash = await hashPassword(password)
      try {
        await prisma.$transaction(async (tx) => {
          const invitation = await tx.onboardingInvitation.findFirst({
            where: { email, company_id: company.id, accepted_at: null },
            orderBy: { created_at: 'desc' },
          })
          await tx.user.create({ data: { email, password_hash, company_id: company.id, role: invitation?.role ?? 'user' } })
          if (invitation) await tx.onboardingInvitation.update({ where: { id: invitation.id }, data: { accepted_at: new Date() } })
        })
      } catch (error) {
        // two sign-ups racing for one address
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw conflict(USER_MESSAGES.emailTaken)
        throw error
      }
      return { message: USER_MESSAGES.signupSuccess }
    },
  )

  app.post(
    '/password-reset-email',
    {
      config: { rateLimit: rateLimit(RATE_LIMITS.passwordResetEmail, { perEmail: true }) },
      schema: {
        tags,
        summary: 'Send a password reset link (valid 1 hour, single use); the answer is the same for unknown addresses',
        body: passwordResetEmailRequestSchema,
        response: { 200: messageIdResponseSchema, 400: errorEnvelopeSchema, 429: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const email = normalizeEmail(request.body.email)
      const user = await prisma.user.findUnique({ where: { email }, select: { id: true, email: true, is_active: true } })
      // unknown or inactive: an id that looks like any other, and no message
      if (!user || !user.is_active) return { message_id: randomUUID() }
      const { token, expiresAt } = await signResetToken(app.config.jwtSecret, user.id)
      const link = `${app.services.publicUrl}/password-reset?token=${encodeURIComponent(token)}`
      const message = await prisma.$transaction(async (tx) => {
        await tx.passwordResetToken.create({ data: { user_id: user.id, token_hash: hashToken(token), expires_at: expiresAt } })
        return app.services.outbox.enqueue(passwordResetEmail(user.email, link, PASSWORD_RESET_TTL_SECONDS), tx)
      })
      return { message_id: message.id }
    },
  )

  app.post(
    '/password-reset',
    {
      config: { rateLimit: rateLimit(RATE_LIMITS.passwordReset) },
      schema: {
        tags,
        summary: 'Set a new password with the token from the reset e-mail; the token works once',
        body: passwordResetRequestSchema,
        response: { 200: messageIdResponseSchema, 400: errorEnvelopeSchema, 429: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const { new_password, temp_jwt_token } = request.body
      if (!meetsServerPasswordRule(new_password)) throw weakPassword('new_password')
      const invalid = () => badRequest(USER_MESSAGES.resetTokenInvalid)
      const verified = await verifyResetToken(temp_jwt_token, app.config.jwtSecret)
      if (!verified.ok) throw invalid()
      const password_hash = await hashPassword(new_password)
      const now = new Date()
      const message = await prisma.$transaction(async (tx) => {
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
        return app.services.outbox.enqueue(passwordChangedEmail(user.email), tx)
      })
      return { message_id: message.id }
    },
  )

  app.get(
    '/info',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: "The signed-in user's profile and the company's product groups",
        security: [{ bearer: [] }],
        response: { 200: userInfoSchema, 401: errorEnvelopeSchema, 403: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const principal = userOf(request)
      const user = await prisma.user.findUniqueOrThrow({
        where: { id: principal.user_id },
        include: { company: { select: { company_name: true, policies: { select: { product_group: true } } } } },
      })
      return {
        id: user.id,
        email: user.email,
        role: user.role,
        company_id: user.company_id,
        company_name: user.company.company_name,
        phone_number: user.phone_number,
        created_at: user.created_at.toISOString(),
        product_groups: sortProductGroups(user.company.policies.map((policy) => policy.product_group)),
      }
    },
  )

  app.post(
    '/verify',
    {
      config: { rateLimit: rateLimit(RATE_LIMITS.verify) },
      schema: {
        tags,
        summary: 'Whether an account exists for the e-mail (case-insensitive) or the US phone number (shareable-link access flow)',
        body: verifyUserRequestSchema,
        response: { 200: verifyUserResponseSchema, 400: errorEnvelopeSchema, 429: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const email = request.body.email ? normalizeEmail(request.body.email) : null
      const rawPhone = request.body.phone_number?.trim() || null
      if (!email && !rawPhone) throw badRequest(USER_MESSAGES.verifyNeedsContact)
      let phone: string | null = null
      if (rawPhone) {
        const normalized = normalizeUsPhone(rawPhone)
        if (!normalized.ok) throw badRequest(normalized.message, [{ path: 'body.phone_number', message: normalized.message }])
        phone = normalized.e164
      }
      const match = await prisma.user.findFirst({
        where: { is_active: true, OR: [...(email ? [{ email }] : []), ...(phone ? [{ phone_number: phone }] : [])] },
        select: { id: true },
      })
      return { exists: match !== null }
    },
  )
}

