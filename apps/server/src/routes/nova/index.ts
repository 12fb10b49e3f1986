import { novaEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { NovaService } from './service.js'

/**
 * Nova, antivenom territory intelligence (spec 2 §7 under /api/nova/v1): role citrus with the NOVA product
 * (spec 2 §6), or a shareable link that lists the call (the link owner's company needs NOVA); every call is
 * metered against the NOVA credits after its guard and input validation (docs/decisions/0038).
 */
export const novaRoutes: FastifyPluginAsyncZod = async (app) => {
  const nova = new NovaService(app.db.pool)
  const options = { onRequest: app.requireAccess({ roles: ['citrus', 'guest'], product: 'NOVA' }), preHandler: app.meterProduct('NOVA') }

  route(app, novaEndpoints.metadata, options, async () => nova.metadata())
  route(app, novaEndpoints.territoryNames, options, async (request) => nova.territoryNames(request.query.nova_use_case))
  route(app, novaEndpoints.atlasSummary, options, async (request) => nova.summary(request.body))
  route(app, novaEndpoints.atlasTiles, options, async (request) => nova.tiles(request.body))
  route(app, novaEndpoints.accounts, options, async (request) => nova.accounts(request.body))
  route(app, novaEndpoints.hcps, options, async (request) => nova.hcps(request.body))
  route(app, novaEndpoints.facility, options, async (request) => nova.facility(request.params.npi))
}
