import {
  NOVA_ACCOUNT_QUERY_TYPES,
  NOVA_COUNTRY_REGION,
  NOVA_DEFAULT_PAGE_SIZE,
  NOVA_DEFAULT_POINT_TYPE,
  NOVA_DEFAULT_SORT,
  NOVA_DEFAULT_SORT_DIRECTION,
  NOVA_DEFAULT_USE_CASE,
  NOVA_MAP_TYPES,
  NOVA_MESSAGES,
  NOVA_SORT_KEYS,
  type AccountsRequest,
  type AtlasTilesRequest,
  type FilterInput,
  type HcpsRequest,
  type NovaAccountQueryType,
  type NovaPointType,
  type NovaSortKey,
  type SortDirection,
} from '@citrus/contracts'

/** The Nova filters of spec 2 §3, as the results screen keeps them (URL parameters of spec 2 §2). */
export interface NovaFilters {
  selectedRegionLevel: 'COUNTRY' | 'SALES_TERRITORY' | 'STATE' | ''
  selectedState: string
  selectedGranularity: string
  selectedSalesTerritory: string
  selectedMapType: string
  selectedPointType: NovaPointType
  selectedInsightsAccountQueryType: NovaAccountQueryType | null
  selectedInsightsSort: NovaSortKey
  insightsSortDirection: SortDirection
  selectedPage: number
  selectedPageSize: number
  selectedCitrusSystemId: string
  selectedHcoNpi: string
  novaUseCase: string
}

export const DEFAULT_NOVA_FILTERS: NovaFilters = {
  selectedRegionLevel: 'COUNTRY',
  selectedState: '',
  selectedGranularity: 'STATE',
  selectedSalesTerritory: '',
  selectedMapType: 'serb_crofab_opportunity_score',
  selectedPointType: NOVA_DEFAULT_POINT_TYPE,
  selectedInsightsAccountQueryType: 'HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY',
  selectedInsightsSort: NOVA_DEFAULT_SORT,
  insightsSortDirection: NOVA_DEFAULT_SORT_DIRECTION,
  selectedPage: 0,
  selectedPageSize: NOVA_DEFAULT_PAGE_SIZE,
  selectedCitrusSystemId: '',
  selectedHcoNpi: '',
  novaUseCase: NOVA_DEFAULT_USE_CASE,
}

/** Granularity from the URL: Sales Territory and Territory → SALES_TERRITORY, State → STATE, Country → COUNTRY, else upper case. */
export function normalizeGranularity(value: string | null | undefined): string {
  const v = (value ?? '').trim()
  if (v === '') return ''
  const lower = v.toLowerCase()
  if (lower === 'sales territory' || lower === 'territory') return 'SALES_TERRITORY'
  if (lower === 'state') return 'STATE'
  if (lower === 'country') return 'COUNTRY'
  return v.toUpperCase()
}

/** Region level from the URL: United States → COUNTRY, else upper case. */
export function normalizeRegionLevel(value: string | null | undefined): NovaFilters['selectedRegionLevel'] {
  const v = (value ?? '').trim()
  if (v === '') return ''
  if (v.toLowerCase() === 'united states') return 'COUNTRY'
  const upper = v.toUpperCase().replace(/\s+/g, '_')
  return upper === 'COUNTRY' || upper === 'STATE' || upper === 'SALES_TERRITORY' ? upper : ''
}

/** Map type labels → identifiers; unknown labels lower-cased, spaces to underscores, other characters dropped. */
export function normalizeMapType(value: string | null | undefined): string {
  const v = (value ?? '').trim()
  if (v === '') return ''
  const known = NOVA_MAP_TYPES.find((t) => t.code === v || t.name.toLowerCase() === v.toLowerCase())
  if (known) return known.code
  return v
    .toLowerCase()
    .replace(/\s+/g, '_')
    .replace(/[^a-z0-9_]/g, '')
}

const oneOf = <T extends string>(values: readonly T[], value: string | null, fallback: T): T =>
  value !== null && (values as readonly string[]).includes(value) ? (value as T) : fallback

/** Filters from the results URL (spec 2 §2); anything missing keeps its default. */
export function filtersFromSearchParams(params: URLSearchParams): NovaFilters {
  const regionLevel = normalizeRegionLevel(params.get('region_level')) || DEFAULT_NOVA_FILTERS.selectedRegionLevel
  const accountType = params.get('account_query_type')
  return {
    ...DEFAULT_NOVA_FILTERS,
    selectedRegionLevel: regionLevel,
    selectedState: params.get('state') ?? '',
    selectedGranularity:
      normalizeGranularity(params.get('granularity')) || (regionLevel === 'SALES_TERRITORY' ? 'SALES_TERRITORY' : 'STATE'),
    selectedSalesTerritory: params.get('sales_territory') ?? '',
    selectedMapType: normalizeMapType(params.get('map_type')) || DEFAULT_NOVA_FILTERS.selectedMapType,
    selectedPointType: oneOf(['ALL', 'NONE'] as const, (params.get('point_type') ?? '').toUpperCase(), NOVA_DEFAULT_POINT_TYPE),
    selectedInsightsAccountQueryType:
      accountType === null
        ? DEFAULT_NOVA_FILTERS.selectedInsightsAccountQueryType
        : oneOf(NOVA_ACCOUNT_QUERY_TYPES, accountType, 'HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY'),
    selectedInsightsSort: oneOf(NOVA_SORT_KEYS, params.get('insights_sort'), NOVA_DEFAULT_SORT),
    insightsSortDirection: oneOf(['ASC', 'DESC'] as const, (params.get('sort_direction') ?? '').toUpperCase(), NOVA_DEFAULT_SORT_DIRECTION),
    selectedCitrusSystemId: params.get('system_id') ?? '',
    selectedHcoNpi: params.get('hco_npi') ?? '',
    novaUseCase: params.get('nova_use_case') || NOVA_DEFAULT_USE_CASE,
  }
}

/** The URL parameters of the filters (empty values left out); `tab` is kept by the caller. */
export function filtersToSearchParams(filters: NovaFilters, base: URLSearchParams = new URLSearchParams()): URLSearchParams {
  const next = new URLSearchParams(base)
  const set = (key: string, value: string | null | undefined) => (value ? next.set(key, value) : next.delete(key))
  set('region_level', filters.selectedRegionLevel)
  set('state', filters.selectedState)
  set('granularity', filters.selectedGranularity)
  set('sales_territory', filters.selectedSalesTerritory)
  set('map_type', filters.selectedMapType)
  set('point_type', filters.selectedPointType)
  set('account_query_type', filters.selectedInsightsAccountQueryType)
  set('insights_sort', filters.selectedInsightsSort)
  set('sort_direction', filters.insightsSortDirection)
  set('system_id', filters.selectedCitrusSystemId)
  set('hco_npi', filters.selectedHcoNpi)
  set('nova_use_case', filters.novaUseCase)
  return next
}

/** Search-within-region: the state, the sales territory, or 'US' (spec 2 §5). */
export function searchWithinRegion(filters: NovaFilters): string {
  if (filters.selectedRegionLevel === 'STATE') return filters.selectedState
  if (filters.selectedRegionLevel === 'SALES_TERRITORY') return filters.selectedSalesTerritory
  return NOVA_COUNTRY_REGION
}

/** Thrown when a request is built from filters that break the rules; lists every message. */
export class NovaRequestError extends Error {
  constructor(readonly messages: string[]) {
    super(messages.join('; '))
    this.name = 'NovaRequestError'
  }
}

export function tilesRequestErrors(filters: NovaFilters): string[] {
  const errors: string[] = []
  if (!filters.selectedRegionLevel) errors.push(NOVA_MESSAGES.scopeRequired)
  if (!filters.selectedGranularity) errors.push(NOVA_MESSAGES.granularityRequired)
  if (!filters.selectedMapType) errors.push(NOVA_MESSAGES.mapTypeRequired)
  if (!filters.novaUseCase) errors.push(NOVA_MESSAGES.useCaseRequired)
  if (filters.selectedRegionLevel === 'STATE' && !filters.selectedState) errors.push(NOVA_MESSAGES.stateRequiredScope)
  return errors
}

export function insightsRequestErrors(filters: NovaFilters): string[] {
  const errors: string[] = []
  if (!filters.selectedRegionLevel) errors.push(NOVA_MESSAGES.scopeRequired)
  if (filters.selectedRegionLevel === 'STATE' && !filters.selectedState) errors.push(NOVA_MESSAGES.stateRequiredInsights)
  return errors
}

function geoFilterInput(filters: NovaFilters) {
  return {
    code: 'region' as const,
    filter_value: {
      filter_value_kind: 'GEO_WITHIN_REGION' as const,
      region_level: filters.selectedRegionLevel as 'COUNTRY' | 'SALES_TERRITORY' | 'STATE',
      search_within_region: searchWithinRegion(filters),
    },
  }
}

export function buildTilesRequest(filters: NovaFilters): AtlasTilesRequest {
  const errors = tilesRequestErrors(filters)
  if (errors.length > 0) throw new NovaRequestError(errors)
  return {
    geo_filter_input: {
      ...geoFilterInput(filters),
      filter_value: {
        ...geoFilterInput(filters).filter_value,
        granularity: filters.selectedGranularity as 'COUNTRY' | 'STATE' | 'SALES_TERRITORY',
      },
    },
    map_selection: { code: 'map_selection', filter_value: filters.selectedMapType as AtlasTilesRequest['map_selection']['filter_value'] },
    nova_use_case: filters.novaUseCase as 'serb_crofab',
    point_selection: filters.selectedPointType,
  }
}

export function buildAccountsRequest(
  filters: NovaFilters,
  quick: FilterInput[] = [],
  overrides: { accountQueryType?: NovaAccountQueryType; pageSize?: number } = {},
): AccountsRequest {
  const errors = insightsRequestErrors(filters)
  if (errors.length > 0) throw new NovaRequestError(errors)
  const type = overrides.accountQueryType ?? filters.selectedInsightsAccountQueryType ?? 'FACILITY'
  return {
    geo_filter_input: geoFilterInput(filters),
    nova_use_case: filters.novaUseCase as 'serb_crofab',
    account_query_type: type,
    filter_inputs: [
      ...(filters.selectedCitrusSystemId && type === 'FACILITY'
        ? [{ code: 'health_system_id' as const, filter_value: filters.selectedCitrusSystemId }]
        : []),
      ...quick,
    ],
    page: filters.selectedPage,
    page_size: overrides.pageSize ?? filters.selectedPageSize,
    sort_input: { code: filters.selectedInsightsSort, sort_direction: filters.insightsSortDirection },
  }
}

export function buildHcpsRequest(filters: NovaFilters, quick: FilterInput[] = []): HcpsRequest {
  const errors: string[] = []
  if (!filters.selectedHcoNpi) errors.push(NOVA_MESSAGES.hcpNpiMissing)
  if (!filters.selectedRegionLevel) errors.push(NOVA_MESSAGES.scopeMissing)
  if (errors.length > 0) throw new NovaRequestError(errors)
  return {
    geo_filter_input: geoFilterInput(filters),
    nova_use_case: filters.novaUseCase as 'serb_crofab',
    filter_inputs: [
      { code: 'facility_npi', filter_value: filters.selectedHcoNpi },
      ...quick.filter((f) => f.code === 'min_snake_envenominations' || f.code === 'min_crofab_units_used'),
    ],
    page: filters.selectedPage,
    page_size: filters.selectedPageSize,
    sort_input: { code: filters.selectedInsightsSort, sort_direction: filters.insightsSortDirection },
  }
}

/** Drill level of the sidebar (spec 2 §4). */
export type DrillLevel = 'none' | 'health_system' | 'hospital' | 'provider'

/** Selecting a health system: hospital and provider cleared, page 0, the system set, query type FACILITY. */
export function selectHealthSystem(
  filters: NovaFilters,
  systemId: string,
  territory?: { state?: string; salesTerritory?: string },
): NovaFilters {
  return {
    ...filters,
    selectedCitrusSystemId: systemId,
    selectedHcoNpi: '',
    selectedPage: 0,
    selectedInsightsAccountQueryType: 'FACILITY',
    ...(territory?.salesTerritory ? { selectedSalesTerritory: territory.salesTerritory } : {}),
  }
}

/** Selecting a hospital: npi set, page reset, query type cleared. */
export function selectHospital(filters: NovaFilters, npi: string): NovaFilters {
  return { ...filters, selectedHcoNpi: npi, selectedPage: 0, selectedInsightsAccountQueryType: null }
}

/**
 * Back to the health systems: system and npi cleared, query type HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY. The
 * scope (state or territory) stays: clearing it would leave a state-level scope without its state.
 */
export function backToNone(filters: NovaFilters): NovaFilters {
  return {
    ...filters,
    selectedCitrusSystemId: '',
    selectedHcoNpi: '',
    selectedPage: 0,
    selectedInsightsAccountQueryType: 'HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY',
  }
}

/** Back to a health system: npi cleared, query type FACILITY. */
export function backToHealthSystem(filters: NovaFilters): NovaFilters {
  return { ...filters, selectedHcoNpi: '', selectedPage: 0, selectedInsightsAccountQueryType: 'FACILITY' }
}

/** Filter changes that reset the page; SALES_TERRITORY as scope sets the granularity too (spec 2 §4). */
export function changeFilters(filters: NovaFilters, change: Partial<NovaFilters>): NovaFilters {
  const next = { ...filters, ...change }
  const resets: (keyof NovaFilters)[] = [
    'selectedRegionLevel',
    'selectedGranularity',
    'selectedState',
    'selectedSalesTerritory',
    'selectedInsightsAccountQueryType',
    'selectedInsightsSort',
    'insightsSortDirection',
    'novaUseCase',
  ]
  if (resets.some((key) => key in change && change[key] !== filters[key])) next.selectedPage = 0
  if (change.selectedRegionLevel === 'SALES_TERRITORY') next.selectedGranularity = 'SALES_TERRITORY'
  return next
}

export function drillLevel(filters: NovaFilters, providerNpi: string | null): DrillLevel {
  if (filters.selectedHcoNpi && providerNpi) return 'provider'
  if (filters.selectedHcoNpi) return 'hospital'
  if (filters.selectedCitrusSystemId) return 'health_system'
  return 'none'
}

/** Tiles are fetched only for the country, or a sales territory once one is chosen (spec 2 §4). */
export function shouldFetchTiles(filters: NovaFilters): boolean {
  return (
    filters.selectedRegionLevel === 'COUNTRY' ||
    (filters.selectedRegionLevel === 'SALES_TERRITORY' && filters.selectedSalesTerritory !== '')
  )
}

/** Quick filters (spec 2 §2, §9) as server filter inputs. */
export const QUICK_FILTERS = {
  highOpportunity: { label: 'High Opportunity', filter: { code: 'min_opportunity_score', filter_value: 75 } },
  hpgAffiliated: { label: 'HPG Affiliated', filter: { code: 'hpg_affiliated', filter_value: true } },
  crofabOpportunity: { label: 'CroFab Users', filter: { code: 'min_crofab_units_used', filter_value: 1 } },
  highVolume: { label: 'High Volume', filter: { code: 'min_snake_envenominations', filter_value: 10 } },
} as const satisfies Record<string, { label: string; filter: FilterInput }>
export type QuickFilterKey = keyof typeof QUICK_FILTERS
