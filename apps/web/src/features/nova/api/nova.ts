import { endpoints, type AccountsRequest, type AtlasTilesRequest, type EndpointInput, type HcpsRequest } from '@citrus/contracts'
import { keepPreviousData } from '@tanstack/react-query'
import { useApiQuery } from '../../../hooks/use-api'

const nova = endpoints.nova

/** GET /nova/v1/metadata/ → map options, sort options, metric groups. */
export function useNovaMetadata(useCase: string, enabled = true) {
  return useApiQuery(nova.metadata, { query: { nova_use_case: useCase as 'serb_crofab' } }, { enabled, staleTime: 10 * 60_000 })
}

/** GET /nova/v1/territories/names. */
export function useTerritoryNames(useCase: string) {
  return useApiQuery(
    nova.territoryNames,
    { query: { nova_use_case: useCase as 'serb_crofab' } },
    { staleTime: 10 * 60_000, select: (r) => r.territory_names },
  )
}

/** POST /nova/v1/atlas/tiles (only for a country scope, or a chosen sales territory). */
export function useNovaTiles(body: AtlasTilesRequest | null) {
  return useApiQuery(nova.atlasTiles, { body: body as AtlasTilesRequest }, { enabled: body !== null, placeholderData: keepPreviousData })
}

/** POST /nova/v1/insights/accounts. */
export function useNovaAccounts(body: AccountsRequest | null) {
  return useApiQuery(nova.accounts, { body: body as AccountsRequest }, { enabled: body !== null, select: (r) => r.page_results })
}

/** POST /nova/v1/insights/hcps. */
export function useNovaHcps(body: HcpsRequest | null) {
  return useApiQuery(nova.hcps, { body: body as HcpsRequest }, { enabled: body !== null, select: (r) => r.page_results })
}

/** POST /nova/v1/insights/facility/{npi}. */
export function useFacilityInsight(npi: string, useCase: string) {
  return useApiQuery(
    nova.facility,
    { params: { npi }, body: { nova_use_case: useCase as 'serb_crofab' } },
    { enabled: /^\d{10}$/.test(npi), select: (r) => r.facility_insight },
  )
}

/** POST /nova/v1/atlas/summary: the scope as one insight. */
export function useNovaSummary(body: EndpointInput<typeof nova.atlasSummary>['body'] | null) {
  return useApiQuery(nova.atlasSummary, { body: body! }, { enabled: body !== null, select: (r) => r.summary })
}
