import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { apiKeyResolver } from '../auth/api-keys.js'
import { authPlugin } from '../plugins/auth.js'
import { creditsPlugin } from '../plugins/credits.js'
import { servicesPlugin } from '../services/index.js'
import { adminRoutes } from './admin/index.js'
import { aiHubRoutes } from './ai-hub/index.js'
import { analyticsRoutes } from './analytics/index.js'
import { atlasRoutes } from './atlas/index.js'
import { companyRoutes } from './company/index.js'
import { costTransparencyRoutes } from './cost-transparency/index.js'
import { dataDictionaryRoutes } from './data-dictionary/index.js'
import { feedbackRoutes } from './feedback/index.js'
import { geoRoutes } from './geo/index.js'
import { insurerRoutes } from './insurers/index.js'
import { metaRoutes } from './meta.js'
import { novaRoutes } from './nova/index.js'
import { shareableUrlRoutes } from './shareable-url/index.js'
import { typeaheadRoutes } from './typeahead/index.js'
import { superAdminRoutes } from './super-admin/index.js'
import { userRoutes } from './users/index.js'
import { careSelectRoutes } from './care-select/index.js'

/** Every documented API area, mounted under /api (spec 4 §1). */
export const apiRoutes: FastifyPluginAsyncZod = async (app) => {
  // Infrastructure of this scope first: credentials (request.auth, guards) and the outbox.
  await app.register(authPlugin)
  await app.register(servicesPlugin)
  // `Authorization: Bearer sk-...` API keys act as their owner (issue 4)
  app.credentials.register(apiKeyResolver)
  // product credits: app.meter / app.meterProduct for metered product routes (docs/decisions/0007)
  await app.register(creditsPlugin)

  await app.register(metaRoutes)
  await app.register(userRoutes)
  await app.register(companyRoutes)
  await app.register(shareableUrlRoutes)
  await app.register(feedbackRoutes)
  await app.register(analyticsRoutes)
  await app.register(dataDictionaryRoutes)
  await app.register(typeaheadRoutes)
  await app.register(insurerRoutes)
  await app.register(costTransparencyRoutes)
  await app.register(adminRoutes)
  await app.register(superAdminRoutes)
  await app.register(geoRoutes)
  await app.register(novaRoutes)
  await app.register(aiHubRoutes)
  await app.register(careSelectRoutes)
  await app.register(atlasRoutes)
}
