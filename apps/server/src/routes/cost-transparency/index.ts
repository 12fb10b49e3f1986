import { costTransparencyEndpoints, ROLES, type ProcedureCostResponse } from '@citrus/contracts'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route, sendJsonText } from '../../lib/endpoint.js'
import { requestDataVersion } from '../../lib/versioned-cache.js'
import { policyOf, userOf } from '../../plugins/auth.js'
import { CREDITS_REMAINING_HEADER } from '../../plugins/credits.js'
import { PriceCheck, type PriceCacheEntry } from '../../services/pricing/price-check.js'
import { shareProviderPage } from '../../services/pricing/share.js'

/**
 * Price Check and provider cost transparency (spec 3 §2.6, §2.7, §7; spec 4 §5). Every signed-in role
 * (members land on /price-check; staff may use it too) and link guests whose link lists the endpoint.
 * Not product-gated (spec 1); metered against the company's SEARCH policy when it has one.
 */
export const costTransparencyRoutes: FastifyPluginAsyncZod = async (app) => {
  const guard = app.requireAccess({ roles: [...ROLES, 'guest'] })

  // Metered against the SEARCH policy when the company has one; the policy was read with the login principal
  // (plugins/auth.ts), so a company without one costs no query here (docs/decisions/0051).
  async function meterSearch(request: FastifyRequest, reply: FastifyReply) {
    const principal = request.auth
    if (!principal) return
    if (!(await policyOf(request, principal.company_id, 'SEARCH'))) return
    const charge = await app.meter(request, 'SEARCH')
    if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
  }

  const priceCheck = new PriceCheck(app.db.pool)

  // a repeat with the answer's ETag gets 304 after metering, before any pricing (docs/decisions/0077)
  const metered = { onRequest: guard, preHandler: [meterSearch, app.conditional()] }

  route(app, costTransparencyEndpoints.procedure, metered, async (request, reply) => {
    const query = request.query
    const input = {
      zip_code: query.zip_code,
      procedure_codes: query.procedure_codes_csv,
      radius_in_m: query.radius_in_m,
      payment_perspective: query.payment_perspective,
    }
    const version = await requestDataVersion(request)
    // The answer is written as a string (docs/decisions/0051): the cached part is serialised once, when it is
    // computed, and the request's own fields are spliced around it. The shape is the contract's by construction
    // (typed) and the integration tests parse every answer with the contract's schema.
    const send = (entry: PriceCacheEntry, cached: boolean) => {
      const tail: Pick<ProcedureCostResponse, 'payment_perspective' | 'procedure_codes' | 'cached'> = {
        payment_perspective: input.payment_perspective ?? null,
        procedure_codes: input.procedure_codes,
        cached,
      }
      return sendJsonText(reply, `${entry.json.slice(0, -1)},${JSON.stringify(tail).slice(1)}`)
    }
    const { entry, cached } = await priceCheck.search(input, version, query._bypass_cache)
    return send(entry, cached)
  })

  route(app, costTransparencyEndpoints.provider, metered, async (request, reply) => {
    // the listed price of a Price Check procedure: the same functions, reference and cached search as Price Check's
    const body = await priceCheck.providerPage(request.params.npi, request.query, () => requestDataVersion(request))
    // typed by construction; the integration tests parse the answers with the contract's schema (as for /procedure)
    return sendJsonText(reply, JSON.stringify(body))
  })

  // A member may share a provider cost page: the server fixes the scope (this page, this endpoint, public, 30 days).
  route(app, costTransparencyEndpoints.shareProvider, { onRequest: app.requireAccess({ roles: [...ROLES] }) }, async (request) =>
    shareProviderPage(
      { prisma: app.db.prisma, secret: app.config.jwtSecret, publicUrl: app.services.publicUrl },
      userOf(request),
      request.params.npi,
    ),
  )
}
