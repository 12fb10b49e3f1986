import { companyEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { companyProductGroups } from '../../domain/administration.js'
import { route } from '../../lib/endpoint.js'
import { companyHasProduct, userOf } from '../../plugins/auth.js'

/** Product access of the caller's own company (spec 1 §7); never another company's. */
export const companyRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, companyEndpoints.products, { onRequest: app.authenticate }, async (request) => {
    return { product_groups: await companyProductGroups(app.db.prisma, userOf(request).company_id) }
  })

  route(app, companyEndpoints.hasAccess, { onRequest: app.authenticate }, async (request) => {
    const { company_id } = userOf(request)
    const { product_group } = request.query
    return { has_access: await companyHasProduct(request, company_id, product_group), product_group }
  })
}
