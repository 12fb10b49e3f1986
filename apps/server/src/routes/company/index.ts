import { companyEndpoints } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { companyProductGroups, holdsProduct } from '../../domain/administration.js'
import { route } from '../../lib/endpoint.js'
import { policyOf, userOf } from '../../plugins/auth.js'

/** Product access of the caller's own company (spec 1 §7); never another company's. The rules: domain/administration.ts. */
export const companyRoutes: FastifyPluginAsyncZod = async (app) => {
  route(app, companyEndpoints.products, { onRequest: app.authenticate }, async (request) => {
    return { product_groups: await companyProductGroups(app.db.prisma, userOf(request).company_id) }
  })

  route(app, companyEndpoints.hasAccess, { onRequest: app.authenticate }, async (request) => {
    const { company_id } = userOf(request)
    const { product_group } = request.query
    // the policies read with the login principal (plugins/auth.ts policyOf): no query here
    const has_access = await holdsProduct((companyId, product) => policyOf(request, companyId, product), company_id, product_group)
    return { has_access, product_group }
  })
}
