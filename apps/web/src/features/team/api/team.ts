import { ADMIN_PATHS, type CompanyUser, type ProductUsage } from '@citrus/contracts'
import { api } from '../../../lib/api-client'

/** The fields of a seat the screen uses (spec 1 §3 Company user). */
export type Seat = Pick<CompanyUser, 'id' | 'email' | 'role' | 'created_at'>
/** The fields of a product's usage the screen uses (spec 1 §3 Product usage). */
export type ProductUsageRow = Pick<ProductUsage, 'id' | 'product_group' | 'remaining_count' | 'is_infinite'>

const listOf = <T,>(response: unknown, key: string): T[] => {
  const value = typeof response === 'object' && response !== null ? (response as Record<string, unknown>)[key] : undefined
  return Array.isArray(value) ? (value as T[]) : []
}

/** GET /admin/active-seats → { users }. */
export async function getActiveSeats(): Promise<Seat[]> {
  return listOf<Seat>(await api.get<unknown>(ADMIN_PATHS.activeSeats), 'users')
}

/** GET /admin/product-usage → { products }. */
export async function getProductUsage(): Promise<ProductUsageRow[]> {
  return listOf<ProductUsageRow>(await api.get<unknown>(ADMIN_PATHS.productUsage), 'products')
}

/** GET /admin/activation-key → { activation_key }. */
export async function getActivationKey(): Promise<string | null> {
  const response = await api.get<{ activation_key?: unknown } | undefined>(ADMIN_PATHS.activationKey)
  return typeof response?.activation_key === 'string' ? response.activation_key : null
}
