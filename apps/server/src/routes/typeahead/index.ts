import { ROLES, typeaheadEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { searchIcd10, searchProcedureCodes, searchProcedures, searchSpecialties } from './lookups.js'

/**
 * Look-ups of the search forms (spec 3 §7, spec 2 §7): every signed-in role (Care Connect staff, members in
 * Price Check) and shareable-link guests whose link lists the endpoint. Not metered: they are not product calls.
 */
export const typeaheadRoutes: FastifyPluginAsyncZod = async (app) => {
  const guard = { onRequest: app.requireAccess({ roles: [...ROLES, 'guest'] }) }

  route(app, typeaheadEndpoints.omni, guard, async (request) => ({
    suggestions: await searchSpecialties(app.db.pool, request.query.query, request.query.limit),
  }))
  route(app, typeaheadEndpoints.icd10, guard, async (request) => ({
    codes: await searchIcd10(app.db.pool, request.query.query, request.query.limit),
  }))
  route(app, typeaheadEndpoints.cpt, guard, async (request) => ({
    codes: await searchProcedureCodes(app.db.pool, request.query.query, request.query.limit),
  }))
  route(app, typeaheadEndpoints.procedures, guard, async (request) => ({
    procedures: await searchProcedures(app.db.pool, request.query.query, request.query.limit),
  }))
}
