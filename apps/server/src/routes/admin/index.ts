import { API_TOKEN_MESSAGES, ADMIN_ROLES, adminEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { AdministrationService } from '../../domain/administration.js'
import { OnboardingService } from '../../domain/onboarding.js'
import { route } from '../../lib/endpoint.js'
import { requireRoles, userOf } from '../../plugins/auth.js'

/**
 * Company administration (spec 1 §2 API Keys and Team Management; §7): roles admin and citrus.
 * An admin works on their own company only; citrus on any company (query company_id). The rules (the company a call
 * addresses, whose keys it reaches) are in domain/administration.ts, the keys in domain/api-tokens.ts, invitations in
 * domain/onboarding.ts.
 */
export const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  const { prisma } = app.db
  const guard = requireRoles(ADMIN_ROLES)
  const administration = new AdministrationService(prisma, app.credits)

  route(app, adminEndpoints.listApiTokens, { onRequest: guard }, async (request) =>
    administration.apiTokens(userOf(request), request.query.company_id),
  )

  route(app, adminEndpoints.createApiToken, { onRequest: guard }, async (request) =>
    administration.createApiToken(userOf(request), request.body),
  )

  route(app, adminEndpoints.deleteApiToken, { onRequest: guard }, async (request) => {
    await administration.revokeApiToken(userOf(request), request.body.id)
    return { message: API_TOKEN_MESSAGES.deleted }
  })

  route(app, adminEndpoints.activeSeats, { onRequest: guard }, async (request) =>
    administration.activeSeats(userOf(request), request.query.company_id),
  )

  route(app, adminEndpoints.productUsage, { onRequest: guard }, async (request) =>
    administration.productUsage(userOf(request), request.query.company_id),
  )

  route(app, adminEndpoints.activationKey, { onRequest: guard }, async (request) =>
    administration.activationKey(userOf(request), request.query.company_id),
  )

  route(app, adminEndpoints.permission, { onRequest: guard }, async (request) =>
    administration.permission(userOf(request), request.params.user_id),
  )

  route(app, adminEndpoints.onboardingEmail, { onRequest: guard }, async (request) => {
    return new OnboardingService(prisma, app.services.outbox, app.services.publicUrl).invite(userOf(request), request.body)
  })
}
