import { endpoints, type EndpointOutput } from '@citrus/contracts'
import { useApiMutation, useApiQuery } from '../../../hooks/use-api'

export type ProviderCost = EndpointOutput<typeof endpoints.costTransparency.provider>

/**
 * GET /cost-transparency/provider/{npi} (docs/decisions/0029), optionally one carrier's claims; with a Price Check
 * procedure's codes (and its search's ZIP) also the listed price of those codes (docs/decisions/0075).
 */
export function useProviderCost(
  npi: string,
  insurance: string | null = null,
  listed: { codes: string | null; zip: string | null } = { codes: null, zip: null },
) {
  return useApiQuery(
    endpoints.costTransparency.provider,
    {
      params: { npi },
      query: {
        ...(insurance ? { payment_perspective: insurance } : {}),
        ...(listed.codes ? { procedure_codes_csv: listed.codes, ...(listed.zip ? { zip_code: listed.zip } : {}) } : {}),
      },
    },
    { enabled: /^\d{10}$/.test(npi), retry: false },
  )
}

/** POST /cost-transparency/provider/{npi}/share: a link limited to this page and its endpoint. */
export function useShareProviderCost() {
  return useApiMutation(endpoints.costTransparency.shareProvider)
}
