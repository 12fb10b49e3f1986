import { errorEnvelopeSchema, insurersResponseSchema, ROLES } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { insurerNames } from '../typeahead/lookups.js'

/** GET /insurers/: the insurer names searches filter by (spec 3 §7), from the insurers table. */
export const insurerRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/',
    {
      onRequest: app.requireAccess({ roles: [...ROLES, 'guest'] }),
      schema: {
        tags: ['insurers'],
        summary: 'Insurer names, sorted',
        security: [{ bearer: [] }],
        response: { 200: insurersResponseSchema, 401: errorEnvelopeSchema, 403: errorEnvelopeSchema },
      },
    },
    async () => ({ insurers: await insurerNames(app.db.pool) }),
  )
}
