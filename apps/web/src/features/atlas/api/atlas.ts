import { endpoints, type AtlasDrilldownRequest, type EndpointInput } from '@citrus/contracts'
import { useApiQuery } from '../../../hooks/use-api'
import { useQuery } from '@tanstack/react-query'
import { callEndpoint } from '../../../lib/api-client'

/** GET /atlas/: the company's plan tier and the features it unlocks (docs/decisions/0033). */
export function useAtlasHome() {
  return useApiQuery(endpoints.atlas.home, {}, { staleTime: 60_000 })
}

type GenericQuery = NonNullable<EndpointInput<typeof endpoints.atlas.generic>['query']>
/** GET /atlas/generic: the choropleth of a query. */
export function useAtlasGeneric(query: GenericQuery | null) {
  return useApiQuery(endpoints.atlas.generic, { query: query ?? {} }, { enabled: query !== null, retry: false })
}

/** POST /atlas/drilldown as a query (it reads, it changes nothing). */
export function useAtlasDrilldown(body: AtlasDrilldownRequest | null) {
  return useQuery({
    queryKey: ['POST', endpoints.atlas.drilldown.path, body],
    queryFn: ({ signal }) => callEndpoint(endpoints.atlas.drilldown, { body: body! }, { signal }),
    enabled: body !== null,
    retry: false,
  })
}

type ListQuery = NonNullable<EndpointInput<typeof endpoints.atlas.list>['query']>
/** GET /atlas-v2/list/conditions/{page}: the List tab's rows. */
export function useAtlasList(page: number, query: ListQuery | null) {
  return useApiQuery(
    endpoints.atlas.list,
    { params: { use_case: 'conditions', page }, query: query ?? {} },
    { enabled: query !== null, retry: false },
  )
}
