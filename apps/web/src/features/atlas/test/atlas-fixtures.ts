import { TOKEN_STORAGE_KEY } from '@citrus/contracts'
import { mockApi } from '../../../test/mock-api'
import { loginToken } from '../../../test/tokens'

/** Atlas answers for the client's tests: one metric of a drill-down card. */
export const atlasMetric = (code: string, name: string, v: number, unit = 'PATIENT_COUNT', kind = 'INT') => ({
  code,
  name,
  description: '',
  unit,
  value: { v, value_kind: kind },
})

type MetricGroup = { type: string; metrics: ReturnType<typeof atlasMetric>[] }

/** A drill-down card of a region (a state or the country): the entity block with everything but the name empty. */
export function regionInsight(o: {
  id: string
  name: string
  metrics: MetricGroup[]
  entityType?: string
  territoryLevel?: string
  parent?: string | null
}) {
  return {
    entity_type: o.entityType ?? 'STATE',
    account_type: null,
    citrus_id: o.id,
    display_name: o.name,
    parent_citrus_id: o.parent === undefined ? 'US' : o.parent,
    territoryLevel: o.territoryLevel ?? 'STATE',
    badges: [],
    additional_metadata: [],
    summary_md: '',
    metrics: o.metrics,
    entity: {
      name: o.name,
      full_name: null,
      parent_name: null,
      npi: null,
      citrus_id: o.id,
      healthsystem_id: null,
      id: o.id,
      zip_code: null,
      latitude: null,
      longitude: null,
      city: null,
      state: null,
      title: null,
      cms_specialization: null,
      facility_name: null,
      address: null,
    },
    zip_code: null,
    name: o.name,
    latitude: null,
    longitude: null,
  }
}

/** A GET /atlas/generic answer for a country-wide search by state, with an empty map. */
export function genericAnswer(o: {
  codes: string[]
  totalPatients?: number
  regionCount?: number
  maxValue?: number
  items?: { color: string; opacity: number; label: string; min_value: number; max_value: number }[]
}) {
  return {
    geojson: { type: 'FeatureCollection', features: [] },
    choropleth_legend: {
      type: 'GRADIENT',
      metric_config: { title: 'Patients', value_format: 'INTEGER', value_suffix: '' },
      min_value: 0,
      max_value: o.maxValue ?? 0,
      items: o.items ?? [],
    },
    summary: {
      total_patients: o.totalPatients ?? 0,
      region_count: o.regionCount ?? 0,
      codes: o.codes,
      tile_granularity: 'STATE',
      search_within_region: 'US',
      search_within_region_type: 'COUNTRY',
      region_name: 'United States',
      plan_tier: 'BASE',
    },
  }
}

/** A POST /atlas/drilldown answer: one page holding all the results. */
export function drilldownAnswer(results: unknown[], o: { planTier?: string; pageSize?: number } = {}) {
  return {
    page_results: {
      results,
      page: 0,
      page_size: o.pageSize ?? 25,
      total_results: results.length,
      total_pages: results.length > 0 ? 1 : 0,
    },
    plan_tier: o.planTier ?? 'BASE',
  }
}

/** The /atlas/generic/results address of a country-wide search for the codes. */
export const atlasResultsPath = (codes: string[]) =>
  `/atlas/generic/results?icd10_cm_union_csv=${codes.join(',')}&search_within_region=US&search_within_region_type=COUNTRY`

/** Signs a user in and answers the results page: the generic search and its drill-down cards, plus any extra routes. */
export function mockAtlasResults(generic: unknown, results: unknown[], extra: Record<string, unknown> = {}) {
  localStorage.setItem(TOKEN_STORAGE_KEY, loginToken({ role: 'user' }))
  return mockApi({ 'GET /atlas/generic': generic, 'POST /atlas/drilldown': drilldownAnswer(results), ...extra })
}
