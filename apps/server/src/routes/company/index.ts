import {
  companyProductsResponseSchema,
  errorEnvelopeSchema,
  hasAccessQuerySchema,
  hasAccessResponseSchema,
} from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { companyHasProduct, userOf } from '../../plugins/auth.js'
import { sortProductGroups } from '../users/index.js'

const tags = ['company']

/** Product access of the caller's own company (spec 1 §7); never another company's. */
export const companyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/products',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: "The product groups the caller's company holds",
        security: [{ bearer: [] }],
        response: { 200: companyProductsResponseSchema, 401: errorEnvelopeSchema, 403: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const { company_id } = userOf(request)
      const policies = await app.db.prisma.companyPolicy.findMany({ where: { company_id }, select: { product_group: true } })
      return { product_groups: sortProductGroups(policies.map((policy) => policy.product_group)) }
    },
  )

  app.get(
    '/product/has-access',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        summary: "Whether the caller's company holds a product group",
        security: [{ bearer: [] }],
        querystring: hasAccessQuerySchema,
        response: { 200: hasAccessResponseSchema, 400: errorEnvelopeSchema, 401: errorEnvelopeSchema, 403: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const { company_id } = userOf(request)
      const { product_group } = request.query
      return { has_access: await companyHasProduct(request, company_id, product_group), product_group }
    },
  )
}
