import { ADMIN_MESSAGES, ADMIN_ROLES, API_TOKEN_MESSAGES, COMPANY_MESSAGES, adminEndpoints } from '@citrus/contracts'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { UserPrincipal } from '../../auth/principal.js'
import { ApiTokenService } from '../../domain/api-tokens.js'
import { apiActor } from '../../domain/audit.js'
import { OnboardingService } from '../../domain/onboarding.js'
import { sortProductGroups } from '../../domain/product-groups.js'
import { route } from '../../lib/endpoint.js'
import { forbidden, notFound } from '../../lib/errors.js'
import { requireRoles, userOf } from '../../plugins/auth.js'

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

  route(app, adminEndpoints.listApiTokens, { onRequest: guard }, async (request) => {
    const companyId = await companyInScope(request, request.query.company_id)
    return new ApiTokenService(prisma, apiActor(userOf(request))).list({ company_id: companyId })
  })

  route(app, adminEndpoints.createApiToken, { onRequest: guard }, async (request) => {
    const principal = userOf(request)
    if (request.body.company_id != null && request.body.company_id !== principal.company_id) {
      throw forbidden(API_TOKEN_MESSAGES.ownCompanyOnly)
    }
    return new ApiTokenService(prisma, apiActor(principal)).create({ user_id: principal.user_id, name: request.body.name })
  })

  route(app, adminEndpoints.deleteApiToken, { onRequest: guard }, async (request) => {
    const principal = userOf(request)
    await new ApiTokenService(prisma, apiActor(principal)).revoke(
      request.body.id,
      isCitrus(principal) ? {} : { company_id: principal.company_id },
    )
    return { message: API_TOKEN_MESSAGES.deleted }
  })

  route(app, adminEndpoints.activeSeats, { onRequest: guard }, async (request) => {
    const companyId = await companyInScope(request, request.query.company_id)
    const users = await prisma.user.findMany({
      where: { company_id: companyId, is_active: true },
      orderBy: { id: 'asc' },
      select: { id: true, email: true, role: true, created_at: true },
    })
    return { users: users.map((user) => ({ ...user, created_at: user.created_at.toISOString() })) }
  })

  route(app, adminEndpoints.productUsage, { onRequest: guard }, async (request) => {
    const companyId = await companyInScope(request, request.query.company_id)
    return { products: await app.credits.usage(companyId) }
  })

  route(app, adminEndpoints.activationKey, { onRequest: guard }, async (request) => {
    const companyId = await companyInScope(request, request.query.company_id)
    const company = await prisma.company.findUniqueOrThrow({ where: { id: companyId }, select: { activation_key: true } })
    return { activation_key: company.activation_key }
  })

  route(app, adminEndpoints.permission, { onRequest: guard }, async (request) => {
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
  })

  route(app, adminEndpoints.onboardingEmail, { onRequest: guard }, async (request) => {
    return new OnboardingService(prisma, app.services.outbox, app.services.publicUrl).invite(userOf(request), request.body)
  })
}
