import { shareableUrlEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { route } from '../../lib/endpoint.js'
import { requireRoles, userOf } from '../../plugins/auth.js'
import { LinkService, SHARE_MANAGER_ROLES } from '../../services/links/service.js'

/** Shareable links (services/links): staff create, list and revoke them; anyone may validate a token. */
export const shareableUrlRoutes: FastifyPluginAsyncZod = async (app) => {
  const links = new LinkService(app.db.prisma, app.config.jwtSecret, app.services.publicUrl)
  const managers = { onRequest: requireRoles(SHARE_MANAGER_ROLES) }

  route(app, shareableUrlEndpoints.create, managers, async (request) => links.create(userOf(request), request.body))
  route(app, shareableUrlEndpoints.list, managers, async (request) => links.list(userOf(request)))
  route(app, shareableUrlEndpoints.validate, {}, async (request) => links.validate(request.query.token, request.auth))
  route(app, shareableUrlEndpoints.revoke, managers, async (request) => links.revoke(userOf(request), request.params.share_id))
}
