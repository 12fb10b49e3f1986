import { endpoints, type EndpointOutput } from '@citrus/contracts'
import { useApiQuery } from '../../../hooks/use-api'

const admin = endpoints.admin

/** An active seat (spec 1 §3 Company user). */
export type Seat = EndpointOutput<typeof admin.activeSeats>['users'][number]
/** A product's usage in the current cycle (spec 1 §3 Product usage). */
export type ProductUsageRow = EndpointOutput<typeof admin.productUsage>['products'][number]

/** GET /admin/active-seats → { users }. */
export function useActiveSeats() {
  return useApiQuery(admin.activeSeats, {}, { select: (response) => response.users })
}

/** GET /admin/product-usage → { products }. */
export function useProductUsage() {
  return useApiQuery(admin.productUsage, {}, { select: (response) => response.products })
}

/** GET /admin/activation-key → { activation_key }. */
export function useActivationKey() {
  return useApiQuery(admin.activationKey, {}, { select: (response) => response.activation_key })
}
