import { costTransparencyEndpoints, ROLES } from '@citrus/contracts'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route, sendJsonText } from '../../lib/endpoint.js'
import { requestDataVersion } from '../../lib/versioned-cache.js'
import { policyOf, userOf } from '../../plugins/auth.js'
import { CREDITS_REMAINING_HEADER } from '../../plugins/credits.js'
import { CostTransparencyService } from '../../services/pricing/service.js'

/**
 * Price Check and provider cost transparency (spec 3 §2.6, §2.7, §7; spec 4 §5). Every signed-in role
 * (members land on /price-check; staff may use it too) and link guests whose link lists the endpoint.
 * Not product-gated (spec 1); metered against the company's SEARCH policy when it has one. The rules, the
 * metering and the answers' text are in services/pricing/service.ts.
 */
export const costTransparencyRoutes: FastifyPluginAsyncZod = async (app) => {
  const guard = app.requireAccess({ roles: [...ROLES, 'guest'] })
  const pricing = new CostTransparencyService({
    pool: app.db.pool,
    prisma: app.db.prisma,
    secret: app.config.jwtSecret,
    publicUrl: app.services.publicUrl,
  })

  async function meterSearch(request: FastifyRequest, reply: FastifyReply) {
    const charge = await pricing.meter({
      company_id: request.auth?.company_id ?? null,
      readPolicy: (companyId, product) => policyOf(request, companyId, product),
      meter: (product) => app.meter(request, product),
    })
    if (charge && charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
  }

  // a repeat with the answer's ETag gets 304 after metering, before any pricing (docs/decisions/0077)
  const metered = { onRequest: guard, preHandler: [meterSearch, app.conditional()] }

  // the answers are written as JSON text (docs/decisions/0051), their shape the contract's by construction
  route(app, costTransparencyEndpoints.procedure, metered, async (request, reply) =>
    sendJsonText(reply, await pricing.procedureJson(request.query, await requestDataVersion(request))),
  )

  route(app, costTransparencyEndpoints.provider, metered, async (request, reply) =>
    sendJsonText(reply, await pricing.providerJson(request.params.npi, request.query, () => requestDataVersion(request))),
  )

  // A member may share a provider cost page: the server fixes the scope (this page, this endpoint, public, 30 days).
  route(app, costTransparencyEndpoints.shareProvider, { onRequest: app.requireAccess({ roles: [...ROLES] }) }, async (request) =>
    pricing.shareProvider(userOf(request), request.params.npi),
  )
}
