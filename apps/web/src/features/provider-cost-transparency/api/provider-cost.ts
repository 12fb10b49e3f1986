import { endpoints, type EndpointOutput } from '@citrus/contracts'
import { useApiMutation, useApiQuery } from '../../../hooks/use-api'

export type ProviderCost = EndpointOutput<typeof endpoints.costTransparency.provider>

/** GET /cost-transparency/provider/{npi} (docs/decisions/0029), optionally one carrier's claims. */
export function useProviderCost(npi: string, insurance: string | null = null) {
  return useApiQuery(
    endpoints.costTransparency.provider,
    { params: { npi }, query: insurance ? { payment_perspective: insurance } : {} },
    { enabled: /^\d{10}$/.test(npi), retry: false },
  )
}

/** POST /cost-transparency/provider/{npi}/share: a link limited to this page and its endpoint. */
export function useShareProviderCost() {
  return useApiMutation(endpoints.costTransparency.shareProvider)
}
