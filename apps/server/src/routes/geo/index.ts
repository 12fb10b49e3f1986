import { AUTH_MESSAGES, GEO_MESSAGES, MVT_CONTENT_TYPE, geoEndpoints, tileInRange } from '@citrus/contracts'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { notFound, unauthorized } from '../../lib/errors.js'
import { buildVectorTile, tileEncoderOf } from '../../lib/vector-tiles.js'
import { BASEMAP_LAYERS, boundaryCollectionJson, boundaryDataVersion, etagMatches, etagOf, type CachedBody } from './boundaries.js'
import { placeCollectionJson } from './places.js'

/** Tiles kept in memory (a national view at zoom 3-6 is a few hundred). */
const TILE_CACHE_SIZE = 2_000
/** Browsers may reuse an answer this long, then revalidate with If-None-Match. */
const CACHE_CONTROL = 'private, max-age=3600'

/**
 * The offline basemap (docs/decisions/0020-map-basemap.md): state and county outlines as GeoJSON and as
 * vector tiles, and the points of its place labels. Boundaries are public Census reference data, not customer
 * data: every signed-in role and every valid shareable link may read them (whatever the link's api_endpoints),
 * and they are not metered.
 */
export const geoRoutes: FastifyPluginAsyncZod = async (app) => {
  const guard = {
    onRequest: async (request: FastifyRequest) => {
      const principal = request.auth
      // any signed-in user (login token or API key) or valid shareable-link guest
      if (!principal) throw request.authError ?? unauthorized(AUTH_MESSAGES.authRequired)
    },
  }

  const boundaryCache = new Map<string, CachedBody>()
  const tileCache = new Map<string, CachedBody>()

  function sendCached(request: FastifyRequest, reply: FastifyReply, cached: CachedBody, contentType: string) {
    reply.header('ETag', cached.etag).header('Cache-Control', CACHE_CONTROL).header('Vary', 'Authorization')
    if (etagMatches(request.headers['if-none-match'], cached.etag)) return reply.code(304).send()
    return reply.type(contentType).send(cached.body)
  }

  route(app, geoEndpoints.boundaries, guard, async (request, reply) => {
    const { level, state } = request.query
    const version = await boundaryDataVersion(app.db.pool)
    const key = `${level}:${state ?? ''}`
    let cached = boundaryCache.get(key)
    if (!cached || cached.version !== version) {
      const body = Buffer.from(await boundaryCollectionJson(app.db.pool, level, state), 'utf8')
      cached = { body, etag: etagOf(body), version }
      boundaryCache.set(key, cached)
    }
    return sendCached(request, reply, cached, 'application/json; charset=utf-8')
  })

  // one body for everyone: the label points of the basemap (states and the largest cities)
  let placesCache: CachedBody | undefined
  route(app, geoEndpoints.places, guard, async (request, reply) => {
    const version = await boundaryDataVersion(app.db.pool)
    if (!placesCache || placesCache.version !== version) {
      const body = Buffer.from(await placeCollectionJson(app.db.pool), 'utf8')
      placesCache = { body, etag: etagOf(body), version }
    }
    return sendCached(request, reply, placesCache, 'application/json; charset=utf-8')
  })

  route(app, geoEndpoints.tile, guard, async (request, reply) => {
    const { z, x, y } = request.params
    if (!tileInRange(z, x, y)) throw notFound(GEO_MESSAGES.tileOutOfRange(z, x, y))
    const version = await boundaryDataVersion(app.db.pool)
    const key = `${z}/${x}/${y}`
    let cached = tileCache.get(key)
    if (!cached || cached.version !== version) {
      const body = await buildVectorTile(app.db.pool, await tileEncoderOf(app.db.pool), { z, x, y }, BASEMAP_LAYERS)
      cached = { body, etag: etagOf(body), version }
      if (tileCache.size >= TILE_CACHE_SIZE) tileCache.delete(tileCache.keys().next().value as string)
    } else {
      tileCache.delete(key) // least recently used goes first
    }
    tileCache.set(key, cached)
    return sendCached(request, reply, cached, MVT_CONTENT_TYPE)
  })
}
