import { endpoints, PRICE_CHECK_DEFAULT_RADIUS_M, PRICE_CHECK_TYPEAHEAD_LIMIT, type EndpointOutput } from '@citrus/contracts'
import { useApiQuery } from '../../../hooks/use-api'

export type ProcedureCosts = EndpointOutput<typeof endpoints.costTransparency.procedure>
export type ProcedureOption = EndpointOutput<typeof endpoints.typeahead.procedures>['procedures'][number]

/** GET /typeahead/procedure-typeahead; blank text asks nothing (spec 3 §5). */
export function useProcedureSuggestions(query: string) {
  const text = query.trim()
  return useApiQuery(
    endpoints.typeahead.procedures,
    { query: { query: text, limit: PRICE_CHECK_TYPEAHEAD_LIMIT } },
    { enabled: text !== '', staleTime: 60_000 },
  )
}

/**
 * GET /cost-transparency/procedure: fetched when ZIP and codes exist, again whenever ZIP, insurance or codes
 * change (spec 3 §4.8); every call sends the Price Check radius, 50000 m (spec 3 §7, §9).
 */
export function useProcedureCosts(search: { zip: string; codes: string; insurance: string | null }) {
  return useApiQuery(
    endpoints.costTransparency.procedure,
    {
      query: {
        zip_code: search.zip,
        procedure_codes_csv: search.codes,
        radius_in_m: PRICE_CHECK_DEFAULT_RADIUS_M,
        ...(search.insurance ? { payment_perspective: search.insurance } : {}),
      },
    },
    { enabled: search.zip !== '' && search.codes !== '', retry: false },
  )
}
