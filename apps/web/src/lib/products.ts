import { PRODUCT_GROUPS, endpoints, type ProductGroup } from '@citrus/contracts'
import { useApiQuery } from '../hooks/use-api'
import { useSession } from './session'

export type ProductsState = { status: 'loading'; groups: readonly ProductGroup[] } | { status: 'loaded'; groups: readonly ProductGroup[] }

export const NO_PRODUCTS: ProductsState = { status: 'loaded', groups: [] }
const LOADING: ProductsState = { status: 'loading', groups: [] }

/** The documented product groups in their documented order, without duplicates. */
export function toProductGroups(groups: readonly ProductGroup[]): ProductGroup[] {
  return PRODUCT_GROUPS.filter((group) => groups.includes(group))
}

/**
 * The signed-in company's product groups (GET /company/products, cached per identity by the query
 * client); guests have none, and a failed fetch removes all product access (spec 1 §4).
 */
export function useProducts(): ProductsState {
  const session = useSession()
  const products = useApiQuery(endpoints.company.products, {}, { enabled: session.authenticated })
  if (!session.authenticated || products.isError) return NO_PRODUCTS
  if (products.isPending) return LOADING
  return { status: 'loaded', groups: toProductGroups(products.data.product_groups) }
}
