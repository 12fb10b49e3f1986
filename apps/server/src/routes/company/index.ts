import { companyEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { sortProductGroups } from '../../domain/product-groups.js'
import { route } from '../../lib/endpoint.js'
import { companyHasProduct, userOf } from '../../plugins/auth.js'

/** Product access of the caller's own company (spec 1 §7); never another company's. */
export const companyRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, companyEndpoints.products, { onRequest: app.authenticate }, async (request) => {
    const { company_id } = userOf(request)
    const policies = await app.db.prisma.companyPolicy.findMany({ where: { company_id }, select: { product_group: true } })
    return { product_groups: sortProductGroups(policies.map((policy) => policy.product_group)) }
  })

  route(app, companyEndpoints.hasAccess, { onRequest: app.authenticate }, async (request) => {
    const { company_id } = userOf(request)
    const { product_group } = request.query
    return { has_access: await companyHasProduct(request, company_id, product_group), product_group }
  })
}
