import { z } from 'zod'
import { productGroupSchema } from './access.js'

export const companyProductsResponseSchema = z
  .object({ product_groups: z.array(productGroupSchema) })
  .meta({ id: 'CompanyProducts' })
export type CompanyProductsResponse = z.infer<typeof companyProductsResponseSchema>

export const hasAccessQuerySchema = z.object({
  // upper case on the wire; lower case is tolerated
  product_group: z.preprocess((value) => (typeof value === 'string' ? value.trim().toUpperCase() : value), productGroupSchema),
})
export const hasAccessResponseSchema = z
  .object({ has_access: z.boolean(), product_group: productGroupSchema })
  .meta({ id: 'ProductAccess' })
export type HasAccessResponse = z.infer<typeof hasAccessResponseSchema>
