import { novaEndpoints } from '@citrus/contracts'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { requestDataVersion } from '../../lib/versioned-cache.js'
import { NovaService } from '../../services/nova/service.js'

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * Nova, antivenom territory intelligence (spec 2 §7 under /api/nova/v1): role citrus with the NOVA product
 * (spec 2 §6), or a shareable link that lists the call (the link owner's company needs NOVA); every call is
 * metered against the NOVA credits after its guard and input validation (docs/decisions/0038).
 */
export const novaRoutes: FastifyPluginAsyncZod = async (app) => {
  const nova = new NovaService(app.db.pool)
  const options = { onRequest: app.requireAccess({ roles: ['citrus', 'guest'], product: 'NOVA' }), preHandler: app.meterProduct('NOVA') }

  // the GET answers carry an ETag of the data version and the request: a repeat gets 304 after metering (0077)
  const tagged = { ...options, preHandler: [options.preHandler, app.conditional()] }
  // every answer is computed for the request's data version, the one its ETag names (read once per request)
  const version = (request: FastifyRequest) => () => requestDataVersion(request)
  route(app, novaEndpoints.metadata, tagged, async (request) => nova.metadata(version(request)))
  route(app, novaEndpoints.territoryNames, tagged, async (request) => nova.territoryNames(request.query.nova_use_case, version(request)))
  route(app, novaEndpoints.atlasSummary, options, async (request) => nova.summary(request.body, version(request)))
  // The map, the account lists and the facility are written as JSON text (docs/decisions/0054): the map splices in
  // outlines and point fragments kept per data version, and validating these answers against their zod schemas
  // on every response cost more than computing them. Their shape is the contract's by construction (typed) and
  // nova.int.test.ts parses every answer with the response schemas.
  // (a string or bytes with a JSON content type are sent as they are, without the route's serializer)
  route(app, novaEndpoints.atlasTiles, options, async (request, reply) =>
    reply.header('content-type', JSON_TYPE).send((await nova.tilesJson(request.body, version(request))) as never),
  )
  route(app, novaEndpoints.accounts, options, async (request, reply) =>
    reply.header('content-type', JSON_TYPE).send((await nova.accountsJson(request.body, version(request))) as never),
  )
  route(app, novaEndpoints.hcps, options, async (request) => nova.hcps(request.body, version(request)))
  route(app, novaEndpoints.facility, options, async (request, reply) =>
    reply.header('content-type', JSON_TYPE).send((await nova.facilityJson(request.params.npi, version(request))) as never),
  )
}
