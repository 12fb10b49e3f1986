import { dataDictionaryEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { requestDataVersion } from '../../lib/versioned-cache.js'
import { DataDictionaryService } from '../../services/data-dictionary/service.js'

/** The data dictionary of the request's data version (services/data-dictionary). */
export const dataDictionaryRoutes: FastifyPluginAsyncZod = async (app) => {
  const dictionary = new DataDictionaryService(app.db.pool)
  // an ETag of the data version: a repeat gets 304 (docs/decisions/0077)
  route(app, dataDictionaryEndpoints.get, { preHandler: app.conditional() }, async (request) =>
    dictionary.get(await requestDataVersion(request)),
  )
}
