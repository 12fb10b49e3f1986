import { AUTH_MESSAGES, GEO_MESSAGES, MVT_CONTENT_TYPE, geoEndpoints, tileInRange } from '@citrus/contracts'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { notFound, unauthorized } from '../../lib/errors.js'
import { BasemapService } from '../../services/geo/basemap.js'
import { etagMatches, type CachedBody } from '../../services/geo/boundaries.js'

/** Browsers may reuse an answer this long, then revalidate with If-None-Match. */
const CACHE_CONTROL = 'private, max-age=3600'

/**
 * The offline basemap (docs/decisions/0020-map-basemap.md): state and county outlines as GeoJSON and as
 * vector tiles, and the points of its place labels (services/geo). Boundaries are public Census reference data,
 * not customer data: every signed-in role and every valid shareable link may read them (whatever the link's
 * api_endpoints), and they are not metered.
 */
export const geoRoutes: FastifyPluginAsyncZod = async (app) => {
  const guard = {
    onRequest: async (request: FastifyRequest) => {
      const principal = request.auth
      // any signed-in user (login token or API key) or valid shareable-link guest
      if (!principal) throw request.authError ?? unauthorized(AUTH_MESSAGES.authRequired)
    },
  }
  const basemap = new BasemapService(app.db.pool)

  function sendCached(request: FastifyRequest, reply: FastifyReply, cached: CachedBody, contentType: string) {
    reply.header('ETag', cached.etag).header('Cache-Control', CACHE_CONTROL).header('Vary', 'Authorization')
    if (etagMatches(request.headers['if-none-match'], cached.etag)) return reply.code(304).send()
    return reply.type(contentType).send(cached.body)
  }

  route(app, geoEndpoints.boundaries, guard, async (request, reply) =>
    sendCached(request, reply, await basemap.boundaries(request.query.level, request.query.state), 'application/json; charset=utf-8'),
  )

  route(app, geoEndpoints.places, guard, async (request, reply) =>
    sendCached(request, reply, await basemap.places(), 'application/json; charset=utf-8'),
  )

  route(app, geoEndpoints.tile, guard, async (request, reply) => {
    const { z, x, y } = request.params
    if (!tileInRange(z, x, y)) throw notFound(GEO_MESSAGES.tileOutOfRange(z, x, y))
    return sendCached(request, reply, await basemap.tile(z, x, y), MVT_CONTENT_TYPE)
  })
}
