import { z } from 'zod'
import { productGroupSchema } from './access.js'
import { defineEndpoint } from './endpoint.js'

export const companyProductsResponseSchema = z.object({ product_groups: z.array(productGroupSchema) }).meta({ id: 'CompanyProducts' })
export type CompanyProductsResponse = z.infer<typeof companyProductsResponseSchema>

export const hasAccessQuerySchema = z.object({
  // upper case on the wire; lower case is tolerated
  product_group: z.preprocess((value) => (typeof value === 'string' ? value.trim().toUpperCase() : value), productGroupSchema),
})
export const hasAccessResponseSchema = z
  .object({ has_access: z.boolean(), product_group: productGroupSchema })
  .meta({ id: 'ProductAccess' })
export type HasAccessResponse = z.infer<typeof hasAccessResponseSchema>

const companyTags = ['company'] as const

/** Product access of the caller's own company (spec 1 §7); never another company's. */
export const companyEndpoints = {
  products: defineEndpoint({
    method: 'GET',
    path: '/company/products',
    summary: "The product groups the caller's company holds",
    tags: companyTags,
    security: ['bearer'],
    response: companyProductsResponseSchema,
    errors: [401, 403],
  }),
  hasAccess: defineEndpoint({
    method: 'GET',
    path: '/company/product/has-access',
    summary: "Whether the caller's company holds a product group",
    tags: companyTags,
    security: ['bearer'],
    query: hasAccessQuerySchema,
    response: hasAccessResponseSchema,
    errors: [400, 401, 403],
  }),
} as const
