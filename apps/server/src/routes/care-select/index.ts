import { careSelectEndpoints, ROLES } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { CREDITS_REMAINING_HEADER } from '../../plugins/credits.js'
import { rankProviders, resolveSearch } from './rankings.js'

/**
 * Care Select (spec 3 §7, spec 4 §5). Rankings: staff (Care Connect), members (recommendations) and link
 * guests whose link lists the endpoint, all for a company with CARE_SELECT; one credit per answered search
 * (taken after the inputs are known to be valid, so a 400 costs nothing).
 */
export const careSelectRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.db

  route(
    app,
    careSelectEndpoints.rankings,
    { onRequest: app.requireAccess({ roles: [...ROLES, 'guest'], product: 'CARE_SELECT' }) },
    async (request, reply) => {
      const search = await resolveSearch(pool, request.query)
      const charge = await app.meter(request, 'CARE_SELECT')
      if (charge.remaining !== null) reply.header(CREDITS_REMAINING_HEADER, String(charge.remaining))
      return rankProviders(pool, search)
    },
  )
}
