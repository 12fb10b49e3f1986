import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { registerAuth } from '../plugins/auth.js'
import { registerServices } from '../services/index.js'
import { analyticsRoutes } from './analytics/index.js'
import { companyRoutes } from './company/index.js'
import { dataDictionaryRoutes } from './data-dictionary/index.js'
import { feedbackRoutes } from './feedback/index.js'
import { metaRoutes } from './meta.js'
import { shareableUrlRoutes } from './shareable-url/index.js'
import { userRoutes } from './users/index.js'

/** Every documented API area, mounted under /api (spec 4 §1). */
export const apiRoutes: FastifyPluginAsyncZod = async (app) => {
  // Infrastructure of this scope first: credentials (request.auth, guards) and the outbox.
  registerAuth(app)
  registerServices(app)

  await app.register(metaRoutes)
  await app.register(userRoutes, { prefix: '/users' })
  await app.register(companyRoutes, { prefix: '/company' })
  await app.register(shareableUrlRoutes, { prefix: '/shareable-url' })
  await app.register(feedbackRoutes, { prefix: '/feedback' })
  await app.register(analyticsRoutes, { prefix: '/analytics' })
  await app.register(dataDictionaryRoutes, { prefix: '/data-dictionary' })
}
