import {
  ADMIN_INVITABLE_ROLES,
  ADMIN_MESSAGES,
  ADMIN_ROLES,
  API_TOKEN_MESSAGES,
  COMPANY_MESSAGES,
  ONBOARDING_MESSAGES,
  ONBOARDING_MESSAGE_PRIORITY,
  activationKeyResponseSchema,
  activeSeatsResponseSchema,
  apiTokenListSchema,
  companyIdQuerySchema,
  createApiTokenRequestSchema,
  createApiTokenResponseSchema,
  deleteApiTokenRequestSchema,
  deleteApiTokenResponseSchema,
  errorEnvelopeSchema,
  messageIdResponseSchema,
  onboardingEmailRequestSchema,
  productUsageResponseSchema,
  userIdParamsSchema,
  userPermissionSchema,
} from '@citrus/contracts'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { UserPrincipal } from '../../auth/principal.js'
import { ApiTokenService } from '../../domain/api-tokens.js'
import { apiActor, recordAudit } from '../../domain/audit.js'
import { normalizeEmail } from '../../domain/users.js'
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.js'
import { requireRoles, userOf } from '../../plugins/auth.js'
import { sortProductGroups } from '../users/index.js'
import { onboardingEmail } from './emails.js'
import { documentedValidationError } from './validation.js'

const tags = ['admin']
const security = [{ bearer: [] }]
const denied = { 401: errorEnvelopeSchema, 403: errorEnvelopeSchema }

/**
 * The company whose administration a call addresses: the caller's own by default. An admin may name
 * only their own company (403 otherwise); citrus may name any existing company (404 if unknown).
 */
export async function companyInScope(request: FastifyRequest, requested: number | null | undefined): Promise<number> {
  const principal = userOf(request)
  if (requested === undefined || requested === null || requested === principal.company_id) return principal.company_id
  if (principal.role !== 'citrus') throw forbidden(ADMIN_MESSAGES.otherCompany)
  const company = await request.server.db.prisma.company.findUnique({ where: { id: requested }, select: { id: true } })
  if (!company) throw notFound(COMPANY_MESSAGES.notFound(requested))
  return company.id
}

const isCitrus = (principal: UserPrincipal) => principal.role === 'citrus'

/**
 * Company administration (spec 1 §2 API Keys and Team Management; §7): roles admin and citrus.
 * An admin works on their own company only; citrus on any company (query company_id).
 */
export const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  const { prisma } = app.db
  const guard = requireRoles(ADMIN_ROLES)

  app.get(
    '/api-token',
    {
      onRequest: guard,
      schema: {
        tags,
        summary:
          "The company's active API keys, newest first: every key of every user of the company (the workspace owner can view and manage all keys); masked, never the secret",
        security,
        querystring: companyIdQuerySchema,
        response: { 200: apiTokenListSchema, 400: errorEnvelopeSchema, ...denied, 404: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const companyId = await companyInScope(request, request.query.company_id)
      return new ApiTokenService(prisma, apiActor(userOf(request))).list({ company_id: companyId })
    },
  )

  app.post(
    '/api-token',
    {
      onRequest: guard,
      attachValidation: true,
      schema: {
        tags,
        summary: `Create an API key that acts as the caller in the caller's company; the full key is in \`token\`, shown once. At most 10 active keys per user, then 409 '${API_TOKEN_MESSAGES.maxTokens}'`,
        security,
        body: createApiTokenRequestSchema,
        response: { 200: createApiTokenResponseSchema, 400: errorEnvelopeSchema, ...denied, 409: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const invalid = documentedValidationError(request, [API_TOKEN_MESSAGES.nameRequired])
      if (invalid) throw invalid
      const principal = userOf(request)
      if (request.body.company_id != null && request.body.company_id !== principal.company_id) {
        throw forbidden(API_TOKEN_MESSAGES.ownCompanyOnly)
      }
      return new ApiTokenService(prisma, apiActor(principal)).create({ user_id: principal.user_id, name: request.body.name })
    },
  )

  app.delete(
    '/api-token',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "Revoke an API key at once: an admin any key of their company, citrus any key",
        security,
        body: deleteApiTokenRequestSchema,
        response: { 200: deleteApiTokenResponseSchema, 400: errorEnvelopeSchema, ...denied, 404: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const principal = userOf(request)
      await new ApiTokenService(prisma, apiActor(principal)).revoke(request.body.id, isCitrus(principal) ? {} : { company_id: principal.company_id })
      return { message: API_TOKEN_MESSAGES.deleted }
    },
  )

  app.get(
    '/active-seats',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The company's active users (seats), oldest first",
        security,
        querystring: companyIdQuerySchema,
        response: { 200: activeSeatsResponseSchema, 400: errorEnvelopeSchema, ...denied, 404: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const companyId = await companyInScope(request, request.query.company_id)
      const users = await prisma.user.findMany({
        where: { company_id: companyId, is_active: true },
        orderBy: { id: 'asc' },
        select: { id: true, email: true, role: true, created_at: true },
      })
      return { users: users.map((user) => ({ ...user, created_at: user.created_at.toISOString() })) }
    },
  )

  app.get(
    '/product-usage',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The company's product groups with the credits left in the current renewal cycle (null = unlimited)",
        security,
        querystring: companyIdQuerySchema,
        response: { 200: productUsageResponseSchema, 400: errorEnvelopeSchema, ...denied, 404: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const companyId = await companyInScope(request, request.query.company_id)
      return { products: await app.credits.usage(companyId) }
    },
  )

  app.get(
    '/activation-key',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "The company's activation key (sign-up joins the company with it)",
        security,
        querystring: companyIdQuerySchema,
        response: { 200: activationKeyResponseSchema, 400: errorEnvelopeSchema, ...denied, 404: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const companyId = await companyInScope(request, request.query.company_id)
      const company = await prisma.company.findUniqueOrThrow({ where: { id: companyId }, select: { activation_key: true } })
      return { activation_key: company.activation_key }
    },
  )

  app.get(
    '/permission/:user_id',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "A user's role and the product groups of their company; an admin sees users of their own company only (404 otherwise)",
        security,
        params: userIdParamsSchema,
        response: { 200: userPermissionSchema, 400: errorEnvelopeSchema, ...denied, 404: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const principal = userOf(request)
      const user = await prisma.user.findUnique({
        where: { id: request.params.user_id },
        include: { company: { select: { company_name: true, policies: { select: { product_group: true } } } } },
      })
      // another company's user is reported as unknown: an admin learns nothing about other tenants
      if (!user || (!isCitrus(principal) && user.company_id !== principal.company_id)) throw notFound(ADMIN_MESSAGES.userNotFound)
      return {
        user_id: user.id,
        email: user.email,
        role: user.role,
        is_active: user.is_active,
        company_id: user.company_id,
        company_name: user.company.company_name,
        product_groups: sortProductGroups(user.company.policies.map((policy) => policy.product_group)),
      }
    },
  )

  app.post(
    '/email/onboarding',
    {
      onRequest: guard,
      attachValidation: true,
      schema: {
        tags,
        summary:
          "Invite someone to the company: e-mails a sign-up link with the activation key; signing up with that e-mail gives the chosen role. An admin invites user or admin into their own company; citrus also citrus, into any company",
        security,
        body: onboardingEmailRequestSchema,
        response: { 200: messageIdResponseSchema, 400: errorEnvelopeSchema, ...denied, 409: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const invalid = documentedValidationError(request, ONBOARDING_MESSAGE_PRIORITY)
      if (invalid) throw invalid
      const principal = userOf(request)
      const { company_activation_key: key, role, is_trial } = request.body
      const email = normalizeEmail(request.body.email)
      if (!isCitrus(principal) && !(ADMIN_INVITABLE_ROLES as readonly string[]).includes(role)) {
        throw forbidden(ONBOARDING_MESSAGES.roleNotAllowed)
      }
      const company = await prisma.company.findUnique({ where: { activation_key: key }, select: { id: true, company_name: true, activation_key: true } })
      if (!isCitrus(principal)) {
        // an admin may onboard into their own company only; whether another key exists is not revealed
        if (!company || company.id !== principal.company_id) throw forbidden(ONBOARDING_MESSAGES.notYourCompany)
      } else if (!company) {
        throw badRequest(ONBOARDING_MESSAGES.unknownKey, [{ path: 'body.company_activation_key', message: ONBOARDING_MESSAGES.unknownKey }])
      }
      if (await prisma.user.findUnique({ where: { email }, select: { id: true } })) throw conflict(ONBOARDING_MESSAGES.alreadyMember)

      const link = `${app.services.publicUrl}/sign-up?activation_key=${encodeURIComponent(company.activation_key)}`
      const message = await prisma.$transaction(async (tx) => {
        // one pending invitation per address and company: a new e-mail replaces the earlier role
        const pending = await tx.onboardingInvitation.findFirst({
          where: { email, company_id: company.id, accepted_at: null },
          orderBy: { created_at: 'desc' },
        })
        const invitation = pending
          ? await tx.onboardingInvitation.update({ where: { id: pending.id }, data: { role, created_at: new Date() } })
          : await tx.onboardingInvitation.create({ data: { email, company_id: company.id, role } })
        const queued = await app.services.outbox.enqueue(
          onboardingEmail({ to: email, companyName: company.company_name, role, invitedBy: principal.email, link, isTrial: is_trial }),
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
    },
  )
}
