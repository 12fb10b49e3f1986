import {
  codesResponseSchema,
  errorEnvelopeSchema,
  omniQuerySchema,
  omniResponseSchema,
  proceduresResponseSchema,
  ROLES,
  typeaheadQuerySchema,
} from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { searchIcd10, searchProcedureCodes, searchProcedures, searchSpecialties } from './lookups.js'

const tags = ['typeahead']
const errors = { 400: errorEnvelopeSchema, 401: errorEnvelopeSchema, 403: errorEnvelopeSchema }

/**
 * Look-ups of the search forms (spec 3 §7, spec 2 §7): every signed-in role (Care Connect staff, members in
 * Price Check) and shareable-link guests whose link lists the endpoint. Not metered: they are not product calls.
 */
export const typeaheadRoutes: FastifyPluginAsyncZod = async (app) => {
  const guard = app.requireAccess({ roles: [...ROLES, 'guest'] })

  app.get(
    '/omni',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'Specialty options (NUCC taxonomies): code, description, genre SPECIALTY, score; an empty query lists the most common',
        security: [{ bearer: [] }],
        querystring: omniQuerySchema,
        response: { 200: omniResponseSchema, ...errors },
      },
    },
    async (request) => ({ suggestions: await searchSpecialties(app.db.pool, request.query.query, request.query.limit) }),
  )

  app.get(
    '/icd10-fuzzy',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'ICD-10-CM codes by code, code prefix or words (typos tolerated); exact code first, then prefixes, then text matches',
        security: [{ bearer: [] }],
        querystring: typeaheadQuerySchema,
        response: { 200: codesResponseSchema, ...errors },
      },
    },
    async (request) => ({ codes: await searchIcd10(app.db.pool, request.query.query, request.query.limit) }),
  )

  app.get(
    '/cpt-fuzzy',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'CPT and HCPCS codes by code, code prefix or words (typos tolerated), with plain-language names',
        security: [{ bearer: [] }],
        querystring: typeaheadQuerySchema,
        response: { 200: codesResponseSchema, ...errors },
      },
    },
    async (request) => ({ codes: await searchProcedureCodes(app.db.pool, request.query.query, request.query.limit) }),
  )

  app.get(
    '/procedure-typeahead',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'Price Check procedures (name, cpt_codes, description) by name or code; default limit 10',
        security: [{ bearer: [] }],
        querystring: typeaheadQuerySchema,
        response: { 200: proceduresResponseSchema, ...errors },
      },
    },
    async (request) => ({ procedures: await searchProcedures(app.db.pool, request.query.query, request.query.limit) }),
  )
}
