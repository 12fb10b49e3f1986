import { atlasEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { requestDataVersion } from '../../lib/versioned-cache.js'
import { sendCachedJson } from '../../lib/compressed-answers.js'
import { atlasDrilldown, atlasGeneric, atlasHeatmap, atlasHome, atlasList, atlasTile } from '../../services/atlas/answers.js'
import { planTierOf } from '../../services/atlas/tiers.js'

/** Atlas callers: staff roles with the ATLAS product, and link guests whose link lists the endpoint. */
const ATLAS_ROLES = ['admin', 'citrus', 'user', 'guest'] as const

/** The Atlas endpoints (services/atlas/answers.ts answers them; docs/decisions/0080). */
export const atlasRoutes: FastifyPluginAsyncZod = async (app) => {
  const pool = app.db.pool
  const guard = { onRequest: app.requireAccess({ roles: [...ATLAS_ROLES], product: 'ATLAS' }), preHandler: app.meterProduct('ATLAS') }
  // the GET answers carry an ETag of the data version, the request, the caller and the plan tier: a repeat gets 304
  // after metering, before any count (docs/decisions/0077)
  const tagged = { onRequest: guard.onRequest, preHandler: [guard.preHandler, app.conditional({ vary: planTierOf })] }

  route(app, atlasEndpoints.home, tagged, async (request) => atlasHome(pool, await planTierOf(request), () => requestDataVersion(request)))

  route(app, atlasEndpoints.generic, tagged, async (request, reply) => {
    const answer = await atlasGeneric(pool, request.query, await planTierOf(request), () => requestDataVersion(request))
    // a large answer's gzip bytes are kept per data version under answer.key; otherwise @fastify/compress (0077)
    return sendCachedJson(request, reply, answer.key, answer.version, answer.body)
  })

  route(app, atlasEndpoints.tile, tagged, async (request, reply) => {
    const tile = await atlasTile(pool, request.params, request.query, await planTierOf(request), () => requestDataVersion(request))
    return reply.header('content-type', 'application/vnd.mapbox-vector-tile').header('cache-control', 'private, max-age=60').send(tile)
  })

  route(app, atlasEndpoints.drilldown, guard, async (request) =>
    atlasDrilldown(pool, request.body, await planTierOf(request), () => requestDataVersion(request)),
  )

  route(app, atlasEndpoints.heatmap, tagged, async (request) =>
    atlasHeatmap(pool, request.params.use_case, request.query, await planTierOf(request), () => requestDataVersion(request)),
  )

  route(app, atlasEndpoints.list, tagged, async (request, reply) => {
    const { csv, page } = await atlasList(pool, request.params, request.query, await planTierOf(request), () => requestDataVersion(request))
    if (csv === null) return page
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${csv.filename}"`)
      .send(csv.text as never)
  })
}
