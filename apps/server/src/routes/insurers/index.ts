import { insurersEndpoints, ROLES } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { insurerNames } from '../../domain/insurers.js'
import { route } from '../../lib/endpoint.js'

/** GET /insurers/: the insurer names searches filter by (spec 3 §7), from the insurers table. */
export const insurerRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, insurersEndpoints.list, { onRequest: app.requireAccess({ roles: [...ROLES, 'guest'] }) }, async () => ({
    insurers: await insurerNames(app.db.pool),
  }))
}
