import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { metaRoutes } from './meta.js'

/** Every documented API area, mounted under /api (spec 4 §1). */
export const apiRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(metaRoutes)
}
