import { insurersEndpoints, ROLES } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { readPoolForRequest } from '../../db/replicas.js'
import { insurerNames } from '../../domain/insurers.js'
import { route } from '../../lib/endpoint.js'
import { requestDataVersion } from '../../lib/versioned-cache.js'

/**
 * GET /insurers/: the insurer names searches filter by (spec 3 §7), from the insurers table: a look-up, read on a read
 * replica that holds the request's data version, else on the primary (docs/decisions/0078).
 */
export const insurerRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, insurersEndpoints.list, { onRequest: app.requireAccess({ roles: [...ROLES, 'guest'] }) }, async (request) => ({
    insurers: await insurerNames(await readPoolForRequest(app.db.pool, () => requestDataVersion(request))),
  }))
}
