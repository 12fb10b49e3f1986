import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'
import { legendItemSchema, METRIC_GROUPS, METRIC_UNITS, VALUE_FORMATS, type MetricGroup } from './insights.js'

/**
 * Nova: antivenom territory intelligence for the use case serb_crofab (spec 2 §2-§9, spec 4 §5). Every metric
 * is computed from the snakebite_cases, antivenom_purchases, claims and pharmacy rows (docs/decisions/0038).
 */

// ---------------------------------------------------------------- constants (spec 2 §3, §5, §9)

export const NOVA_USE_CASES = ['serb_crofab', 'general'] as const
export type NovaUseCase = (typeof NOVA_USE_CASES)[number]
export const NOVA_DEFAULT_USE_CASE: NovaUseCase = 'serb_crofab'

/** Scope options in their documented order: COUNTRY (shown as United States), SALES_TERRITORY, STATE. */
export const NOVA_REGION_LEVELS = ['COUNTRY', 'SALES_TERRITORY', 'STATE'] as const
export type NovaRegionLevel = (typeof NOVA_REGION_LEVELS)[number]
export const NOVA_REGION_LEVEL_NAMES: Record<NovaRegionLevel, string> = {
  COUNTRY: 'United States',
  SALES_TERRITORY: 'Sales Territory',
  STATE: 'State',
}
export const NOVA_GRANULARITIES = ['COUNTRY', 'STATE', 'SALES_TERRITORY'] as const
export type NovaGranularity = (typeof NOVA_GRANULARITIES)[number]
export const NOVA_GRANULARITY_NAMES: Record<NovaGranularity, string> = {
  COUNTRY: 'Country',
  STATE: 'State',
  SALES_TERRITORY: 'Sales Territory',
}
/** The search-within-region value of the country scope. */
export const NOVA_COUNTRY_REGION = 'US'

export const NOVA_POINT_TYPES = ['ALL', 'NONE'] as const
export type NovaPointType = (typeof NOVA_POINT_TYPES)[number]
export const NOVA_DEFAULT_POINT_TYPE: NovaPointType = 'NONE'

export const NOVA_ACCOUNT_QUERY_TYPES = ['HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY', 'FACILITY'] as const
export type NovaAccountQueryType = (typeof NOVA_ACCOUNT_QUERY_TYPES)[number]

/** The six map visualisations (spec 2 §5), with their labels. */
export const NOVA_MAP_TYPES = [
  { code: 'snake_envenomination_count', name: 'Snake Envenomation Cases', metric: 'snake_envenomination_cases_5y' },
  { code: 'drug_use_count_crofab_anavip', name: 'CroFab + Anavip Units Used', metric: 'antivenom_units_used_5y' },
  { code: 'serb_crofab_opportunity_score', name: 'SERB CroFab Opportunity Score', metric: 'serb_crofab_opportunity_score' },
  { code: 'serb_crofab_drug_use_count', name: 'SERB CroFab Units Used', metric: 'crofab_units_used_5y' },
  { code: 'serb_crofab_drug_patient_share', name: 'SERB CroFab Patient Share', metric: 'crofab_patient_share_5y' },
  { code: 'serb_anavip_drug_use_count', name: 'Anavip Units Used', metric: 'anavip_units_used' },
] as const
export type NovaMapType = (typeof NOVA_MAP_TYPES)[number]['code']
export const NOVA_MAP_TYPE_CODES = NOVA_MAP_TYPES.map((t) => t.code) as [NovaMapType, ...NovaMapType[]]
export const NOVA_DEFAULT_MAP_TYPE: NovaMapType = 'serb_crofab_opportunity_score'

export const SORT_DIRECTIONS = ['ASC', 'DESC'] as const
export type SortDirection = (typeof SORT_DIRECTIONS)[number]

/** Sort keys (spec 2 §3, §9) and the metric each one orders by; opportunity_score is ours (the filter panel's sort). */
export const NOVA_SORT_OPTIONS = [
  {
    code: 'snake_envenominations',
    name: 'Snake Envenomations',
    metric: 'snake_envenomination_cases_5y',
    description: 'Envenomation cases over 5 years',
  },
  { code: 'crofab_units_used', name: 'CroFab Units Used', metric: 'crofab_units_used_5y', description: 'CroFab vials used over 5 years' },
  { code: 'anavip_units_used', name: 'Anavip Units Used', metric: 'anavip_units_used', description: 'Anavip vials used over 5 years' },
  {
    code: 'anavip_units_used_1yr',
    name: 'Anavip Units Used (1 yr)',
    metric: 'anavip_units_used_1yr',
    description: 'Anavip vials used in the latest year',
  },
  {
    code: 'crofab_units_used_1yr',
    name: 'CroFab Units Used (1 yr)',
    metric: 'crofab_units_used_1yr',
    description: 'CroFab vials used in the latest year',
  },
  {
    code: 'crofab_patient_share',
    name: 'CroFab Patient Share',
    metric: 'crofab_patient_share_5y',
    description: 'Share of antivenom patients treated with CroFab over 5 years',
  },
  {
    code: 'crofab_usage_buying_gap',
    name: 'CroFab Usage-Buying Gap',
    metric: 'crofab_usage_buying_gap',
    description: 'CroFab used versus bought, -10 to 10',
  },
  {
    code: 'antivenom_usage_buying_gap',
    name: 'Antivenom Usage-Buying Gap',
    metric: 'antivenom_usage_buying_gap',
    description: 'Antivenom used versus bought, -10 to 10',
  },
  {
    code: 'snake_envenomination_initials_per_usage',
    name: 'Initial Envenomations per Unit Used',
    metric: 'snake_envenomination_initials_per_usage',
    description: 'Initial-encounter envenomations per antivenom vial used over 5 years',
  },
  {
    code: 'opportunity_score',
    name: 'Opportunity Score',
    metric: 'serb_crofab_opportunity_score',
    description: 'SERB CroFab opportunity score, 0 to 100',
  },
] as const
export type NovaSortKey = (typeof NOVA_SORT_OPTIONS)[number]['code']
export const NOVA_SORT_KEYS = NOVA_SORT_OPTIONS.map((o) => o.code) as [NovaSortKey, ...NovaSortKey[]]
export const NOVA_DEFAULT_SORT: NovaSortKey = 'snake_envenominations'
export const NOVA_DEFAULT_SORT_DIRECTION: SortDirection = 'DESC'
export const NOVA_DEFAULT_PAGE_SIZE = 6
export const NOVA_MAX_PAGE_SIZE = 100

/** Quick-filter thresholds (spec 2 §2, §9). */
export const NOVA_HIGH_OPPORTUNITY_THRESHOLD = 75
export const NOVA_HIGH_VOLUME_CASES = 10

/** filter_inputs codes: the drill-down keys and the quick filters (docs/decisions/0038). */
export const NOVA_FILTER_CODES = [
  'health_system_id',
  'facility_npi',
  'min_opportunity_score',
  'hpg_affiliated',
  'min_crofab_units_used',
  'min_snake_envenominations',
] as const
export type NovaFilterCode = (typeof NOVA_FILTER_CODES)[number]

/** The metric tabs of the results screen, in order (spec 2 §2). */
export const NOVA_METRIC_TABS = ['INCIDENCE', 'COMPETITION', 'SALES', 'DRUG_USAGE', 'NETWORK'] as const satisfies readonly MetricGroup[]
export const BADGE_TYPES = ['OPPORTUNITY', 'RISK', 'SUCCESS', 'WARNING', 'INFO', 'TOP_PRESCRIBER'] as const
export type BadgeType = (typeof BADGE_TYPES)[number]
/** Display priority of badges (spec 2 §9). */
export const BADGE_PRIORITY: readonly BadgeType[] = ['RISK', 'WARNING', 'SUCCESS', 'INFO', 'OPPORTUNITY', 'TOP_PRESCRIBER']

export const PAYER_TYPES = ['medicare', 'medicaid', 'commercial', 'cash', 'other'] as const
export type PayerType = (typeof PAYER_TYPES)[number]

/** Documented messages of the Nova calls (spec 2 §5, §8) and ours. */
export const NOVA_MESSAGES = {
  scopeRequired: 'Geographic scope is required',
  granularityRequired: 'Territory granularity is required',
  mapTypeRequired: 'Map visualization type is required',
  useCaseRequired: 'Nova use case is required',
  stateRequiredScope: 'State selection is required for state-level scope',
  stateRequiredInsights: 'State selection is required for state-level insights',
  hcpNpiMissing: 'Missing HCP NPI',
  scopeMissing: 'Missing scope',
  territoryRequired: 'Sales territory selection is required for territory-level scope',
  unknownState: (value: string) => `Unknown state: ${value}`,
  unknownTerritory: (value: string) => `Unknown sales territory: ${value}`,
  unknownUseCase: 'Unknown Nova use case',
  unknownMapType: 'Unknown map visualization type',
  facilityNotFound: (npi: string) => `No facility with NPI ${npi}`,
  healthSystemNotFound: (id: string) => `No health system with id ${id}`,
} as const

// ---------------------------------------------------------------- requests

const required = (message: string) => (issue: { input: unknown }) =>
  issue.input === undefined || issue.input === null ? message : undefined

const useCase = z.enum(NOVA_USE_CASES, {
  error: (issue) =>
    issue.input === undefined || issue.input === null || issue.input === '' ? NOVA_MESSAGES.useCaseRequired : NOVA_MESSAGES.unknownUseCase,
})

export const geoFilterValueSchema = z.object(
  {
    filter_value_kind: z.literal('GEO_WITHIN_REGION').default('GEO_WITHIN_REGION'),
    region_level: z.enum(NOVA_REGION_LEVELS, { error: required(NOVA_MESSAGES.scopeRequired) }),
    search_within_region: z.string().trim().max(120).optional().describe("the state (USPS code), the sales territory's name, or 'US'"),
    granularity: z.enum(NOVA_GRANULARITIES).optional().describe('tile granularity (atlas/tiles)'),
  },
  { error: required(NOVA_MESSAGES.scopeRequired) },
)
export const geoFilterInputSchema = z
  .object(
    {
      code: z.literal('region').default('region'),
      filter_value: geoFilterValueSchema,
    },
    { error: required(NOVA_MESSAGES.scopeRequired) },
  )
  .meta({ id: 'NovaGeoFilterInput' })
export type GeoFilterInput = z.input<typeof geoFilterInputSchema>

export const mapSelectionSchema = z.object(
  {
    code: z.literal('map_selection').default('map_selection'),
    filter_value: z.enum(NOVA_MAP_TYPE_CODES, {
      error: (issue) => (issue.input === undefined || issue.input === '' ? NOVA_MESSAGES.mapTypeRequired : NOVA_MESSAGES.unknownMapType),
    }),
  },
  { error: required(NOVA_MESSAGES.mapTypeRequired) },
)

const pointSelectionSchema = z
  .union([
    z.enum(NOVA_POINT_TYPES),
    z
      .object({ code: z.literal('point_selection').default('point_selection'), filter_value: z.enum(NOVA_POINT_TYPES) })
      .transform((p) => p.filter_value),
  ])
  .optional()
  .describe("'ALL' (facility points on the map) or 'NONE' (default); also { code: 'point_selection', filter_value }")

/** A state-level scope needs its state; a territory scope its territory. */
function scopeRefinement(stateMessage: string) {
  return (
    value: { geo_filter_input?: { filter_value?: { region_level?: string; search_within_region?: string } } },
    ctx: z.RefinementCtx,
  ) => {
    const scope = value.geo_filter_input?.filter_value
    if (!scope) return
    const region = scope.search_within_region ?? ''
    const path = ['geo_filter_input', 'filter_value', 'search_within_region']
    if (scope.region_level === 'STATE' && (region === '' || region.toUpperCase() === NOVA_COUNTRY_REGION)) {
      ctx.addIssue({ code: 'custom', message: stateMessage, path })
    }
    if (scope.region_level === 'SALES_TERRITORY' && region === '')
      ctx.addIssue({ code: 'custom', message: NOVA_MESSAGES.territoryRequired, path })
  }
}

export const atlasSummaryRequestSchema = z
  .object({
    geo_filter_input: geoFilterInputSchema,
    map_selection: mapSelectionSchema,
    nova_use_case: useCase,
  })
  .superRefine(scopeRefinement(NOVA_MESSAGES.stateRequiredScope))
  .meta({ id: 'NovaAtlasSummaryRequest' })

/** The tiles call's scope: the granularity is required too (spec 2 §5). */
const tilesGeoFilterInputSchema = z.object(
  {
    code: z.literal('region').default('region'),
    filter_value: geoFilterValueSchema.extend({
      granularity: z.enum(NOVA_GRANULARITIES, {
        error: (issue) =>
          issue.input === undefined || issue.input === null || issue.input === '' ? NOVA_MESSAGES.granularityRequired : undefined,
      }),
    }),
  },
  { error: required(NOVA_MESSAGES.scopeRequired) },
)

export const atlasTilesRequestSchema = z
  .object({
    geo_filter_input: tilesGeoFilterInputSchema,
    map_selection: mapSelectionSchema,
    nova_use_case: useCase,
    point_selection: pointSelectionSchema,
  })
  .superRefine(scopeRefinement(NOVA_MESSAGES.stateRequiredScope))
  .meta({ id: 'NovaAtlasTilesRequest' })

/**
 * The Nova search form (spec 2 §2): the region level, the granularity and the map type of the map it opens
 * (/nova-results asks atlas/tiles with them), each required with the tiles call's message.
 */
export const novaSearchFormSchema = z.object({
  region_level: geoFilterValueSchema.shape.region_level,
  granularity: tilesGeoFilterInputSchema.shape.filter_value.shape.granularity,
  map_type: mapSelectionSchema.shape.filter_value,
})

export type AtlasTilesRequest = z.input<typeof atlasTilesRequestSchema>

export const filterInputSchema = z
  .object({
    code: z.enum(NOVA_FILTER_CODES),
    filter_value: z.union([z.string().trim().max(120), z.number().finite(), z.boolean()]),
  })
  .meta({ id: 'NovaFilterInput' })
export type FilterInput = z.infer<typeof filterInputSchema>

export const sortInputSchema = z
  .object({
    code: z.enum(NOVA_SORT_KEYS).default(NOVA_DEFAULT_SORT),
    sort_direction: z.enum(SORT_DIRECTIONS).default(NOVA_DEFAULT_SORT_DIRECTION),
  })
  .meta({ id: 'NovaSortInput' })

const paging = {
  page: z.coerce.number().int().min(0).max(100_000).default(0).describe('0-based page'),
  page_size: z.coerce.number().int().min(1).max(NOVA_MAX_PAGE_SIZE).default(NOVA_DEFAULT_PAGE_SIZE),
  sort_input: sortInputSchema.default({ code: NOVA_DEFAULT_SORT, sort_direction: NOVA_DEFAULT_SORT_DIRECTION }),
}

export const accountsRequestSchema = z
  .object({
    geo_filter_input: geoFilterInputSchema,
    nova_use_case: useCase.default(NOVA_DEFAULT_USE_CASE),
    account_query_type: z.enum(NOVA_ACCOUNT_QUERY_TYPES).default('HEALTH_SYSTEM_OR_INDEPENDENT_FACILITY'),
    filter_inputs: z.array(filterInputSchema).max(20).default([]),
    ...paging,
  })
  .superRefine(scopeRefinement(NOVA_MESSAGES.stateRequiredInsights))
  .meta({ id: 'NovaAccountsRequest' })
export type AccountsRequest = z.input<typeof accountsRequestSchema>

export const hcpsRequestSchema = z
  .object({
    geo_filter_input: geoFilterInputSchema.optional(),
    nova_use_case: useCase.default(NOVA_DEFAULT_USE_CASE),
    filter_inputs: z.array(filterInputSchema).max(20).default([]),
    ...paging,
  })
  .superRefine((value, ctx) => {
    if (!value.geo_filter_input) ctx.addIssue({ code: 'custom', message: NOVA_MESSAGES.scopeMissing, path: ['geo_filter_input'] })
    const npi = value.filter_inputs.find((f) => f.code === 'facility_npi')?.filter_value
    if (npi === undefined || npi === '' || typeof npi === 'boolean') {
      ctx.addIssue({ code: 'custom', message: NOVA_MESSAGES.hcpNpiMissing, path: ['filter_inputs'] })
    }
  })
  .meta({ id: 'NovaHcpsRequest' })
export type HcpsRequest = z.input<typeof hcpsRequestSchema>

export const facilityInsightRequestSchema = z
  .object({
    filter_inputs: z.array(filterInputSchema).max(20).default([]),
    geo_filter_input: geoFilterInputSchema.default({
      code: 'region',
      filter_value: { filter_value_kind: 'GEO_WITHIN_REGION', region_level: 'COUNTRY', search_within_region: NOVA_COUNTRY_REGION },
    }),
    nova_use_case: useCase.default('general'),
  })
  .meta({ id: 'NovaFacilityInsightRequest' })

export const npiParamsSchema = z.object({
  npi: z
    .string()
    .trim()
    .regex(/^\d{10}$/, 'NPI must be 10 digits'),
})

export const useCaseQuerySchema = z.object({
  nova_use_case: useCase.default(NOVA_DEFAULT_USE_CASE),
})

// ---------------------------------------------------------------- responses

export const metricValueSchema = z.object({
  v: z.union([z.number(), z.string()]).nullable(),
  value_kind: z.enum(['INT', 'FLOAT', 'STRING']),
})
export const metricSchema = z
  .object({
    code: z.string(),
    name: z.string(),
    description: z.string(),
    unit: z.enum(METRIC_UNITS),
    value_format: z.enum(VALUE_FORMATS),
    value_suffix: z.string().optional(),
    value: metricValueSchema,
  })
  .meta({ id: 'NovaMetric' })
export type Metric = z.infer<typeof metricSchema>

export const badgeSchema = z
  .object({ code: z.string(), type: z.enum(BADGE_TYPES), label: z.string(), description: z.string() })
  .meta({ id: 'NovaBadge' })
export type Badge = z.infer<typeof badgeSchema>

export const additionalMetadataSchema = z.object({
  code: z.string(),
  label: z.string(),
  value: z.union([z.string(), z.number()]).nullable(),
})

export const topPrescriberSchema = z
  .object({
    name: z.string(),
    npi: z.string(),
    facility_name: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    cms_specialization: z.string().nullable(),
    snake_envenominations_initials_5yr: z.number().int(),
    crofab_patients_5yr: z.number().int(),
    anavip_patients_5yr: z.number().int(),
  })
  .meta({ id: 'NovaTopPrescriber' })
export type TopPrescriber = z.infer<typeof topPrescriberSchema>

export const payerShareSchema = z.object({
  payer_type: z.enum(PAYER_TYPES),
  label: z.string(),
  count: z.number().int(),
  share: z.number().describe('share of the cases, 0-100, 1 decimal'),
})
export type PayerShare = z.infer<typeof payerShareSchema>

export const specialtyCountSchema = z.object({ specialty: z.string(), count: z.number().int() })

/** The entity fields of spec 2 §3 plus the detail-panel fields of each level (spec 2 §2). */
export const novaEntitySchema = z
  .object({
    id: z.string(),
    citrus_id: z.string(),
    name: z.string(),
    full_name: z.string().nullable().optional(),
    parent_name: z.string().nullable().optional(),
    npi: z.string().nullable().optional(),
    healthsystem_id: z.string().nullable().optional(),
    zip_code: z.string().nullable().optional(),
    latitude: z.number().nullable().optional(),
    longitude: z.number().nullable().optional(),
    city: z.string().nullable().optional(),
    state: z.string().nullable().optional(),
    address: z.string().nullable().optional(),
    title: z.string().nullable().optional(),
    years_in_practice: z.number().nullable().optional(),
    age: z.number().nullable().optional(),
    cms_specialization: z.string().nullable().optional(),
    facility_name: z.string().nullable().optional(),
    hco_name: z.string().nullable().optional(),
    // health system panel
    control_type: z.string().optional(),
    number_of_hospitals_owned: z.number().int().optional(),
    number_of_facilities_owned: z.number().int().optional(),
    number_of_affiliated_hcps: z.number().int().optional(),
    phone_numbers: z.array(z.string()).optional(),
    website_domain: z.string().nullable().optional(),
    // facility and provider panels
    facility_type_level_1: z.string().optional(),
    phone_number: z.string().nullable().optional(),
    last_year_patient_count: z.number().int().nullable().optional(),
    last_month_new_patient_count: z.number().int().nullable().optional(),
  })
  .meta({ id: 'NovaEntity' })
export type NovaEntity = z.infer<typeof novaEntitySchema>

export const INSIGHT_ENTITY_TYPES = ['COUNTRY', 'STATE', 'TERRITORY', 'HEALTH_SYSTEM', 'FACILITY', 'PROVIDER'] as const
export type InsightEntityType = (typeof INSIGHT_ENTITY_TYPES)[number]

export const insightSchema = z
  .object({
    entity_type: z.enum(INSIGHT_ENTITY_TYPES),
    account_type: z.enum(['HEALTH_SYSTEM', 'FACILITY']).nullable(),
    citrus_id: z.string(),
    display_name: z.string(),
    parent_citrus_id: z.string().nullable(),
    territoryLevel: z.enum(NOVA_REGION_LEVELS).nullable(),
    entity: novaEntitySchema,
    badges: z.array(badgeSchema),
    additional_metadata: z.array(additionalMetadataSchema),
    summary_md: z.string(),
    metrics: z.partialRecord(z.enum(METRIC_GROUPS), z.array(metricSchema)),
    payer_mix: z.array(payerShareSchema),
    top_crofab_hcps: z.array(topPrescriberSchema).optional(),
    top_anavip_hcps: z.array(topPrescriberSchema).optional(),
    top_antivenom_hcps: z.array(topPrescriberSchema).optional(),
    specialty_breakdown: z.array(specialtyCountSchema).optional(),
  })
  .meta({ id: 'NovaInsight' })
export type NovaInsight = z.infer<typeof insightSchema>

export const pageResultsSchema = z
  .object({
    results: z.array(insightSchema),
    page: z.number().int(),
    page_size: z.number().int(),
    total_results: z.number().int(),
    total_pages: z.number().int(),
  })
  .meta({ id: 'NovaPageResults' })
export const pageResultsResponseSchema = z.object({ page_results: pageResultsSchema })
export type NovaPageResults = z.infer<typeof pageResultsSchema>

export const choroplethLegendSchema = z
  .object({
    type: z.enum(['GRADIENT', 'CATEGORICAL']),
    metric_config: z.object({
      code: z.string(),
      title: z.string(),
      value_format: z.enum(VALUE_FORMATS),
      value_suffix: z.string().optional(),
    }),
    min_value: z.number(),
    max_value: z.number(),
    items: z.array(legendItemSchema),
  })
  .meta({ id: 'NovaChoroplethLegend' })
export type ChoroplethLegend = z.infer<typeof choroplethLegendSchema>

const geometrySchema = z.object({ type: z.string(), coordinates: z.unknown() })
export const tileFeatureSchema = z.object({
  type: z.literal('Feature'),
  id: z.union([z.string(), z.number()]).optional(),
  geometry: geometrySchema.nullable(),
  properties: z
    .object({
      id: z.string(),
      label: z.string(),
      value: z.number().nullable(),
      code: z.string(),
      territory_name: z.string().nullable(),
      primary_metric: z.string(),
      primary_metric_value: z.number().nullable(),
      entity_type: z.enum(['COUNTRY', 'STATE', 'TERRITORY', 'FACILITY']),
      has_marker: z.boolean(),
      fill: z.string(),
      'fill-opacity': z.number(),
      stroke: z.string(),
      score: z.number().nullable(),
      metrics: z.record(z.string(), z.number().nullable()),
      additional_metadata: z.array(additionalMetadataSchema),
    })
    .catchall(z.unknown()),
})
export type TileFeature = z.infer<typeof tileFeatureSchema>
export const featureCollectionSchema = z.object({ type: z.literal('FeatureCollection'), features: z.array(tileFeatureSchema) })

export const atlasTilesResponseSchema = z
  .object({ geojson: featureCollectionSchema, choropleth_legend: choroplethLegendSchema })
  .meta({ id: 'NovaAtlasTiles' })
export type AtlasTilesResponse = z.infer<typeof atlasTilesResponseSchema>

export const atlasSummaryResponseSchema = z
  .object({
    summary: insightSchema,
    map_selection: z.object({ code: z.enum(NOVA_MAP_TYPE_CODES), name: z.string(), value: z.number().nullable() }),
    counts: z.object({ health_system_count: z.number().int(), facility_count: z.number().int(), provider_count: z.number().int() }),
  })
  .meta({ id: 'NovaAtlasSummary' })
export type AtlasSummaryResponse = z.infer<typeof atlasSummaryResponseSchema>

export const facilityInsightResponseSchema = z.object({ facility_insight: insightSchema }).meta({ id: 'NovaFacilityInsight' })

export const territoryNameSchema = z.object({ id: z.number().int(), name: z.string(), state: z.string() })
export const territoryNamesResponseSchema = z.object({ territory_names: z.array(territoryNameSchema) }).meta({ id: 'NovaTerritoryNames' })
export type TerritoryName = z.infer<typeof territoryNameSchema>

const optionSchema = z.object({ code: z.string(), name: z.string() })
export const metadataResponseSchema = z
  .object({
    atlas_metadata: z.object({
      map_metadata: z.object({
        map_options: z.array(
          z.object({ code: z.enum(NOVA_MAP_TYPE_CODES), name: z.string(), description: z.string(), value_format: z.enum(VALUE_FORMATS) }),
        ),
        default_map_option: z.enum(NOVA_MAP_TYPE_CODES),
        region_levels: z.array(optionSchema),
        granularity_options: z.array(optionSchema),
        point_options: z.array(optionSchema),
        data_years: z.object({ first_year: z.number().int().nullable(), latest_year: z.number().int().nullable() }),
      }),
    }),
    insights_metadata: z.object({
      sort_options: z.array(
        z.object({
          code: z.enum(NOVA_SORT_KEYS),
          name: z.string(),
          description: z.string(),
          allowed_sort_directions: z.array(z.enum(SORT_DIRECTIONS)),
        }),
      ),
      default_sort: z.enum(NOVA_SORT_KEYS),
      default_sort_direction: z.enum(SORT_DIRECTIONS),
      account_query_types: z.array(optionSchema),
      metric_groups: z.array(
        z.object({
          code: z.enum(METRIC_GROUPS),
          name: z.string(),
          metrics: z.array(
            z.object({
              code: z.string(),
              name: z.string(),
              description: z.string(),
              unit: z.enum(METRIC_UNITS),
              value_format: z.enum(VALUE_FORMATS),
            }),
          ),
        }),
      ),
      quick_filters: z.array(z.object({ code: z.string(), name: z.string(), filter: filterInputSchema })),
    }),
  })
  .meta({ id: 'NovaMetadata' })
export type NovaMetadata = z.infer<typeof metadataResponseSchema>

// ---------------------------------------------------------------- endpoints (spec 2 §7)

const novaTags = ['nova'] as const
const novaSecurity = ['bearer', 'shareToken'] as const
const tilesPriority = [
  NOVA_MESSAGES.scopeRequired,
  NOVA_MESSAGES.granularityRequired,
  NOVA_MESSAGES.mapTypeRequired,
  NOVA_MESSAGES.useCaseRequired,
  NOVA_MESSAGES.stateRequiredScope,
  NOVA_MESSAGES.territoryRequired,
]
const insightsPriority = [NOVA_MESSAGES.scopeRequired, NOVA_MESSAGES.stateRequiredInsights, NOVA_MESSAGES.territoryRequired]

/** Role citrus and the NOVA product (spec 2 §6); every call is metered against NOVA's credits. */
export const novaEndpoints = {
  metadata: defineEndpoint({
    method: 'GET',
    path: '/nova/v1/metadata/',
    summary: 'Map options (name and code), scopes, granularities, sort options with their directions, metric groups and quick filters',
    tags: novaTags,
    security: novaSecurity,
    query: useCaseQuerySchema,
    response: metadataResponseSchema,
    errors: [400, 401, 402, 403],
  }),
  territoryNames: defineEndpoint({
    method: 'GET',
    path: '/nova/v1/territories/names',
    summary: 'Sales territories of the use case (groups of counties), by state and name',
    tags: novaTags,
    security: novaSecurity,
    query: useCaseQuerySchema,
    response: territoryNamesResponseSchema,
    errors: [400, 401, 402, 403],
  }),
  atlasSummary: defineEndpoint({
    method: 'POST',
    path: '/nova/v1/atlas/summary',
    summary: 'The scope as one insight (every metric over 5 years and the latest year), with the selected map value and account counts',
    tags: novaTags,
    security: novaSecurity,
    body: atlasSummaryRequestSchema,
    response: atlasSummaryResponseSchema,
    errors: [400, 401, 402, 403, 404],
    invalidInput: { priority: tilesPriority },
  }),
  atlasTiles: defineEndpoint({
    method: 'POST',
    path: '/nova/v1/atlas/tiles',
    summary:
      'GeoJSON of the scope at the granularity (COUNTRY, STATE, SALES_TERRITORY) coloured by the map type, with the legend; facility points with point_selection ALL',
    tags: novaTags,
    security: novaSecurity,
    body: atlasTilesRequestSchema,
    response: atlasTilesResponseSchema,
    errors: [400, 401, 402, 403, 404],
    invalidInput: { priority: tilesPriority },
  }),
  accounts: defineEndpoint({
    method: 'POST',
    path: '/nova/v1/insights/accounts',
    summary:
      'Health systems and independent facilities, or facilities (of a health system with filter health_system_id), of the scope with metrics and badges; sorted and paged',
    tags: novaTags,
    security: novaSecurity,
    body: accountsRequestSchema,
    response: pageResultsResponseSchema,
    errors: [400, 401, 402, 403, 404],
    invalidInput: { priority: insightsPriority },
  }),
  hcps: defineEndpoint({
    method: 'POST',
    path: '/nova/v1/insights/hcps',
    summary: 'Clinicians who treated envenomations at a facility (filter facility_npi), with their metrics; sorted and paged',
    tags: novaTags,
    security: novaSecurity,
    body: hcpsRequestSchema,
    response: pageResultsResponseSchema,
    errors: [400, 401, 402, 403, 404],
    invalidInput: { priority: [NOVA_MESSAGES.scopeMissing, NOVA_MESSAGES.hcpNpiMissing] },
  }),
  facility: defineEndpoint({
    method: 'POST',
    path: '/nova/v1/insights/facility/{npi}',
    summary: 'One facility: details, every metric, badges, payer mix, top prescribers and specialties',
    tags: novaTags,
    security: novaSecurity,
    params: npiParamsSchema,
    body: facilityInsightRequestSchema,
    response: facilityInsightResponseSchema,
    errors: [400, 401, 402, 403, 404],
  }),
} as const
