import { API_TOKEN_MESSAGES, ADMIN_ROLES, adminEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { AdministrationService } from '../../domain/administration.js'
import { ApiTokenService } from '../../domain/api-tokens.js'
import { apiActor } from '../../domain/audit.js'
import { OnboardingService } from '../../domain/onboarding.js'
import { route } from '../../lib/endpoint.js'
import { requireRoles, userOf } from '../../plugins/auth.js'

/**
 * Company administration (spec 1 §2 API Keys and Team Management; §7): roles admin and citrus.
 * An admin works on their own company only; citrus on any company (query company_id). The rules are in
 * domain/administration.ts, domain/api-tokens.ts and domain/onboarding.ts.
 */
export const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  const { prisma } = app.db
  const guard = requireRoles(ADMIN_ROLES)
  const administration = new AdministrationService(prisma)

  route(app, adminEndpoints.listApiTokens, { onRequest: guard }, async (request) => {
    const principal = userOf(request)
    const companyId = await administration.companyInScope(principal, request.query.company_id)
    return new ApiTokenService(prisma, apiActor(principal)).list({ company_id: companyId })
  })

  route(app, adminEndpoints.createApiToken, { onRequest: guard }, async (request) => {
    const principal = userOf(request)
    administration.apiTokenCompany(principal, request.body.company_id)
    return new ApiTokenService(prisma, apiActor(principal)).create({ user_id: principal.user_id, name: request.body.name })
  })

  route(app, adminEndpoints.deleteApiToken, { onRequest: guard }, async (request) => {
    const principal = userOf(request)
    await new ApiTokenService(prisma, apiActor(principal)).revoke(request.body.id, administration.revocationScope(principal))
    return { message: API_TOKEN_MESSAGES.deleted }
  })

  route(app, adminEndpoints.activeSeats, { onRequest: guard }, async (request) =>
    administration.activeSeats(await administration.companyInScope(userOf(request), request.query.company_id)),
  )

  route(app, adminEndpoints.productUsage, { onRequest: guard }, async (request) => {
    const companyId = await administration.companyInScope(userOf(request), request.query.company_id)
    return { products: await app.credits.usage(companyId) }
  })

  route(app, adminEndpoints.activationKey, { onRequest: guard }, async (request) =>
    administration.activationKey(await administration.companyInScope(userOf(request), request.query.company_id)),
  )

  route(app, adminEndpoints.permission, { onRequest: guard }, async (request) =>
    administration.permission(userOf(request), request.params.user_id),
  )

  route(app, adminEndpoints.onboardingEmail, { onRequest: guard }, async (request) => {
    return new OnboardingService(prisma, app.services.outbox, app.services.publicUrl).invite(userOf(request), request.body)
  })
}
