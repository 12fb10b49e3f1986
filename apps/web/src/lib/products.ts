import { PRODUCT_GROUPS, type CompanyProductsResponse, type ProductGroup } from '@citrus/contracts'
import { useEffect, useSyncExternalStore } from 'react'
import { api } from './api-client'
import { useSession } from './session'

export type ProductsState =
  | { status: 'loading'; groups: readonly ProductGroup[] }
  | { status: 'loaded'; groups: readonly ProductGroup[] }

export const NO_PRODUCTS: ProductsState = { status: 'loaded', groups: [] }
const LOADING: ProductsState = { status: 'loading', groups: [] }

type Fetcher = () => Promise<CompanyProductsResponse>
let fetcher: Fetcher = () => api.get<CompanyProductsResponse>('/company/products')

/** Tests replace the fetcher instead of mocking fetch. */
export function setProductsFetcher(next: Fetcher): () => void {
  const previous = fetcher
  fetcher = next
  return () => {
    fetcher = previous
  }
}

/** Keeps only the documented product groups, without duplicates. */
export function toProductGroups(response: unknown): ProductGroup[] {
  if (typeof response !== 'object' || response === null) return []
  const list = (response as { product_groups?: unknown }).product_groups
  if (!Array.isArray(list)) return []
  return PRODUCT_GROUPS.filter((group) => list.includes(group))
}

const byToken = new Map<string, ProductsState>()
const listeners = new Set<() => void>()

function emit(): void {
  for (const listener of listeners) listener()
}

/** Loads the company's products once per login token. A failed fetch removes all product access (spec 1 §4). */
export function loadProducts(token: string): void {
  if (byToken.has(token)) return
  byToken.set(token, LOADING)
  emit()
  fetcher()
    .then((response) => byToken.set(token, { status: 'loaded', groups: toProductGroups(response) }))
    .catch(() => byToken.set(token, NO_PRODUCTS))
    .finally(emit)
}

export function getProductsFor(token: string | null): ProductsState {
  if (!token) return NO_PRODUCTS
  return byToken.get(token) ?? LOADING
}

/** Drops cached products (after logout, or in tests). */
export function resetProducts(): void {
  byToken.clear()
  emit()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** The signed-in company's product groups; guests have none. */
export function useProducts(): ProductsState {
  const session = useSession()
  const token = session.authenticated ? session.token : null
  useEffect(() => {
    if (token) loadProducts(token)
  }, [token])
  return useSyncExternalStore(
    subscribe,
    () => getProductsFor(token),
    () => getProductsFor(token),
  )
}
