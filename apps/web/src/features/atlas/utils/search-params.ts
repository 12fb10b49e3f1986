import type { RegionType, TileGranularity } from '@citrus/contracts'

/** A condition chosen in the form (spec 2 §3). */
export interface Condition {
  code: string
  description: string
  title: string
}

/** The generic and condition-based query as kept in the URL (spec 2 §2, §5). */
export interface AtlasUrlQuery {
  codes: string[]
  tile_granularity: TileGranularity
  search_within_region: string
  search_within_region_type: RegionType
  include_census_data: boolean
  include_hco_points: boolean
  _bypass_cache: boolean
  gender: 'M' | 'F' | null
  min_age: number | null
  max_age: number | null
}

export const CODES_PARAM = 'icd10_cm_union_csv'

const GRANULARITIES: readonly TileGranularity[] = ['STATE', 'COUNTY', 'ZIP_CODE_50KM']
const REGION_TYPES: readonly RegionType[] = ['COUNTRY', 'STATE', 'ZIP_CODE_50KM']

/** Reads the query; gender only M or F; ages only when in range. Null when the required parameters are missing. */
export function readAtlasQuery(params: URLSearchParams): AtlasUrlQuery | null {
  const codes = params.get(CODES_PARAM)
  const region = params.get('search_within_region')
  if (codes === null || region === null || region.trim() === '') return null
  const granularity = params.get('tile_granularity') as TileGranularity | null
  const regionType = params.get('search_within_region_type') as RegionType | null
  const gender = params.get('gender')
  const age = (name: string) => {
    const value = params.get(name)
    if (value === null || value === '' || !/^\d+$/.test(value)) return null
    return Number(value)
  }
  const minAge = age('min_age')
  const maxAge = age('max_age')
  return {
    codes: codes
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== ''),
    tile_granularity: granularity && GRANULARITIES.includes(granularity) ? granularity : 'STATE',
    search_within_region: region,
    search_within_region_type: regionType && REGION_TYPES.includes(regionType) ? regionType : region === 'US' ? 'COUNTRY' : 'ZIP_CODE_50KM',
    include_census_data: params.get('include_census_data') === 'true',
    include_hco_points: params.get('include_hco_points') === 'true',
    _bypass_cache: params.get('_bypass_cache') === 'true',
    gender: gender === 'M' || gender === 'F' ? gender : null,
    min_age: minAge !== null && minAge > 0 ? minAge : null,
    max_age: maxAge !== null && maxAge < 100 ? maxAge : null,
  }
}

/** Writes the query; min_age only above 0, max_age only below 100, gender only when not all. */
export function writeAtlasQuery(query: AtlasUrlQuery): URLSearchParams {
  const params = new URLSearchParams()
  params.set(CODES_PARAM, query.codes.join(','))
  params.set('tile_granularity', query.tile_granularity)
  params.set('search_within_region', query.search_within_region)
  params.set('search_within_region_type', query.search_within_region_type)
  params.set('include_census_data', String(query.include_census_data))
  if (query.include_hco_points) params.set('include_hco_points', 'true')
  if (query._bypass_cache) params.set('_bypass_cache', 'true')
  if (query.gender) params.set('gender', query.gender)
  if (query.min_age !== null && query.min_age > 0) params.set('min_age', String(query.min_age))
  if (query.max_age !== null && query.max_age < 100) params.set('max_age', String(query.max_age))
  return params
}

/** The API query of GET /atlas/generic (and the tiles) for a URL query. */
export function genericApiQuery(query: AtlasUrlQuery) {
  return {
    icd10_cm_union_csv: query.codes.join(','),
    tile_granularity: query.tile_granularity,
    search_within_region: query.search_within_region,
    search_within_region_type: query.search_within_region_type,
    include_census_data: query.include_census_data,
    include_hco_points: query.include_hco_points,
    _bypass_cache: query._bypass_cache,
    ...(query.gender ? { gender: query.gender } : {}),
    ...(query.min_age !== null ? { min_age: query.min_age } : {}),
    ...(query.max_age !== null ? { max_age: query.max_age } : {}),
  }
}

/** 'Analysis: {codes or All Conditions}' and 'Region: United States, ZIP {zip} (50km) or the region' (spec 2 §2). */
export function breadcrumbLabels(query: AtlasUrlQuery): { analysis: string; region: string; type: string } {
  const region =
    query.search_within_region_type === 'COUNTRY' || query.search_within_region === 'US'
      ? 'United States'
      : query.search_within_region_type === 'ZIP_CODE_50KM'
        ? `ZIP ${query.search_within_region} (50km)`
        : query.search_within_region
  return {
    analysis: `Analysis: ${query.codes.length > 0 ? query.codes.join(', ') : 'All Conditions'}`,
    region: `Region: ${region}`,
    type: query.search_within_region_type,
  }
}
