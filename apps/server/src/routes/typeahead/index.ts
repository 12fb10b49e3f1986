import { ROLES, typeaheadEndpoints } from '@citrus/contracts'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { readPoolForRequest } from '../../db/replicas.js'
import { route } from '../../lib/endpoint.js'
import { requestDataVersion } from '../../lib/versioned-cache.js'
import { searchIcd10, searchProcedureCodes, searchProcedures, searchSpecialties } from '../../services/typeahead/lookups.js'

/**
 * Look-ups of the search forms (spec 3 §7, spec 2 §7): every signed-in role (Care Connect staff, members in
 * Price Check) and shareable-link guests whose link lists the endpoint. Not metered: they are not product calls.
 * Answered from a read replica that has replayed the request's data version, else from the primary.
 */
export const typeaheadRoutes: FastifyPluginAsyncZod = async (app) => {
  // an ETag of the data version and the request: a repeat gets 304 before the look-up (docs/decisions/0077)
  const guard = { onRequest: app.requireAccess({ roles: [...ROLES, 'guest'] }), preHandler: app.conditional() }
  // a read replica that holds the request's data version, else the primary (docs/decisions/0078)
  const reader = (request: FastifyRequest) => readPoolForRequest(app.db.pool, () => requestDataVersion(request))

  route(app, typeaheadEndpoints.omni, guard, async (request) => ({
    suggestions: await searchSpecialties(await reader(request), request.query.query, request.query.limit),
  }))
  route(app, typeaheadEndpoints.icd10, guard, async (request) => ({
    codes: await searchIcd10(await reader(request), request.query.query, request.query.limit),
  }))
  route(app, typeaheadEndpoints.cpt, guard, async (request) => ({
    codes: await searchProcedureCodes(await reader(request), request.query.query, request.query.limit),
  }))
  route(app, typeaheadEndpoints.procedures, guard, async (request) => ({
    procedures: await searchProcedures(await reader(request), request.query.query, request.query.limit),
  }))
}
