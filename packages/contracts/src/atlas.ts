import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'
import { legendItemSchema, METRIC_GROUPS, METRIC_UNITS, VALUE_FORMATS } from './insights.js'
import { INPUT_MESSAGES, INT32_MAX } from './validation.js'

/**
 * Atlas (spec 2 §2-§9, spec 4 §5): where the patients with chosen conditions are. Counts are distinct
 * patients matching any of the ICD-10-CM codes (a code prefix matches its sub-codes), filtered by gender
 * and age, aggregated by region; hotspots are Getis-Ord Gi* (docs/decisions/0032-atlas-hotspots.md);
 * plan tiers lock features (docs/decisions/0033-atlas-plan-tiers.md); the calls the seed does not show
 * are designed in docs/decisions/0034-atlas-calls.md.
 */

// ---- constants (spec 2 §9) ------------------------------------------------------------------------

export const ATLAS_DEFAULT_VIEW = { latitude: 39.8283, longitude: -98.5795, zoom: 3.5 } as const
export const ATLAS_PAGE_SIZES = [10, 25, 50, 100] as const
export const ATLAS_DEFAULT_PAGE_SIZE = 25
/** drill-down pages the condition-based screen asks for (spec 2 §7) */
export const ATLAS_MAX_PAGE_SIZE = 500
/** a ZIP search covers the ZIP areas within this distance of the ZIP's centre (ZIP_CODE_50KM) */
export const ATLAS_ZIP_RADIUS_M = 50_000
/** ZIP areas are neighbours for Gi* when their centres are at most this far apart (decision 0032) */
export const ATLAS_ZIP_NEIGHBOUR_BAND_M = 15_000
export const ATLAS_MAX_CODES = 50
export const ATLAS_MAX_ZIPS = 500
/** Region Analysis drawer (spec 2 §2): fixed estimates */
export const REGION_ANALYSIS_ESTIMATES = { trialEligible: 0.02, moderateToSevere: 0.3, diagnosisDelayYears: 2.5 } as const
export const GENERIC_LAST_QUERY_STORAGE_KEY = 'citrus.atlas.generic.lastQuery'
export const ATLAS_QUERY_BUILDER_COLLAPSED_KEY = 'citrus.atlas.queryBuilder.collapsed'
/** vector tiles: the layer of region polygons (or ZIP points) and of facility points */
export const ATLAS_TILE_LAYER = 'regions'
export const ATLAS_TILE_POINTS_LAYER = 'facilities'
export const ATLAS_TILE_EXTENT = 4096
export const ATLAS_TILE_MAX_ZOOM = 14

export const TILE_GRANULARITIES = ['STATE', 'COUNTY', 'ZIP_CODE_50KM'] as const
export type TileGranularity = (typeof TILE_GRANULARITIES)[number]
export const REGION_TYPES = ['COUNTRY', 'STATE', 'ZIP_CODE_50KM'] as const
export type RegionType = (typeof REGION_TYPES)[number]
export const DRILLDOWN_TYPES = ['COUNTRY', 'STATE', 'FACILITY', 'PROVIDER'] as const
export type DrilldownType = (typeof DRILLDOWN_TYPES)[number]
export const ATLAS_PAYER_TYPES = ['commercial', 'medicare', 'medicaid', 'other'] as const
export type AtlasPayerType = (typeof ATLAS_PAYER_TYPES)[number]

// ---- plan tiers (spec 2 §6; decision 0033) -------------------------------------------------------------

export const PLAN_TIERS = ['BASE', 'BUSINESS', 'BUSINESS_PLUS', 'ENTERPRISE'] as const
export const planTierSchema = z.enum(PLAN_TIERS)
export type PlanTier = z.infer<typeof planTierSchema>
export const PLAN_TIER_NAMES: Record<PlanTier, string> = {
  BASE: 'Base',
  BUSINESS: 'Business',
  BUSINESS_PLUS: 'Business+',
  ENTERPRISE: 'Enterprise',
}
/** The features a tier unlocks, and the lowest tier that has each. */
export const ATLAS_FEATURE_TIERS = {
  customZips: 'BUSINESS',
  csvExport: 'BUSINESS_PLUS',
  facilityLists: 'BUSINESS_PLUS',
  ndcSearch: 'BUSINESS_PLUS',
  score: 'ENTERPRISE',
} as const satisfies Record<string, PlanTier>
export type AtlasFeature = keyof typeof ATLAS_FEATURE_TIERS
export function tierAllows(tier: PlanTier, feature: AtlasFeature): boolean {
  return PLAN_TIERS.indexOf(tier) >= PLAN_TIERS.indexOf(ATLAS_FEATURE_TIERS[feature])
}
export const PLAN_TIER_ERROR_CODE = 'PLAN_TIER_REQUIRED'

// ---- messages (spec 2 §2, §5, §6, §8) ----------------------------------------------------------------

export const ATLAS_MESSAGES = {
  // server refusals (decision 0033)
  customZipsLocked: 'Business subscription required to search custom ZIP codes',
  facilitiesLocked: 'Business+ subscription required to view facilities and hospitals',
  providersLocked: 'Business+ subscription required to view providers',
  csvLocked: 'Upgrade to Business+ to export data to CSV',
  hcoPointsLocked: 'Business+ subscription required to view facility points',
  invalidCode: (code: string) => `Invalid ICD-10-CM code: ${code}`,
  tooManyCodes: `At most ${ATLAS_MAX_CODES} ICD-10-CM codes`,
  unknownState: (state: string) => `Unknown state: ${state}`,
  unknownZip: (zip: string) => `Unknown ZIP code: ${zip}`,
  invalidZip: 'Please enter a valid 5-digit ZIP code',
  tooManyZips: `At most ${ATLAS_MAX_ZIPS} ZIP codes`,
  ageRange: 'min_age must not be greater than max_age',
  invalidTile: 'Tile coordinates are out of range',
  unknownUseCase: (useCase: string) => `Unknown Atlas use case: ${useCase}`,
  facilityNotFound: 'Facility not found',
  // client texts (spec 2 §2)
  emptyTitle: 'Ready to Discover Healthcare Insights',
  searchFailedTitle: 'Search Failed',
  searchFailed: 'Search failed',
  selectConditionHelper: 'Select at least one condition to begin search',
  selectCondition: 'Select at least one condition',
  enterZip: 'Enter at least one ZIP code',
  customZipTooltip: 'Upgrade to the Business tier to search custom ZIP codes',
  noResults: 'No Results Available',
  noInsurance: 'Insurance data not available',
  overviewError: 'Error Loading Overview',
  noStateData: 'No State-Level Data',
  noData: 'No Data Available',
  listError: 'Error Loading List',
  csvTooltip: 'Upgrade to Business+ to export data to CSV',
  scoreTooltip: 'Upgrade to Enterprise for the score',
  selectOnlyOne: 'Select Only 1',
  applying: 'Applying...',
  applyFilter: 'Apply Filter',
  noGeoData: 'No Geographic Data',
  mapError: 'Error Loading Map',
  noGeoDataCriteria: 'No geographic data available for the selected criteria',
  premiumTitle: 'Premium Feature Required',
  premiumHospitals: 'Business+ subscription required to view hospitals of a state',
  premiumProcedureTitle: 'Premium Feature - Business+',
  premiumProcedure: 'Add HCPCS procedure codes to refine your search results',
  learnMore: 'Learn More',
  invalidZipChip: 'Invalid ZIP code format. Expected 5 digits.',
  csvOnly: 'Please upload a CSV file',
  csvParseFailed: 'Failed to parse CSV file',
  zipsAdded: (added: number, skipped: number) =>
    `Added ${added} ZIP code(s)` + (skipped > 0 ? `. Skipped ${skipped} invalid ${skipped === 1 ? 'entry' : 'entries'}.` : ''),
  // spec 2 §8
  countryFailed: 'Failed to fetch country data',
  drilldownFailed: 'Failed to fetch drilldown data',
  fallbackNote: (message: string) => `Note: Using fallback data. Drilldown error: ${message}`,
  hospitalsFailed: 'Failed to fetch hospital data',
  hospitalsError: (message: string) => `Error loading hospitals: ${message}`,
  atlasFailed: 'Failed to fetch atlas data',
  stateDrilldownFailed: 'Failed to fetch state drill-down data',
  facilityDrilldownFailed: 'Failed to fetch facility drill-down data',
  mapLoadFailed: 'Failed to Load Map Data',
  noMapData: 'No Map Data Available',
  noMapDataText: 'There is no map data to display for the current filters. Try adjusting your search criteria or region selection.',
  missingParams: 'Missing required query parameters',
  urlCopied: 'URL copied to clipboard',
  urlCopyFailed: 'Failed to copy URL to clipboard',
  geojsonExported: 'GeoJSON exported successfully',
  analyzing: (percent: number) => `Analyzing patient data... ${percent}% complete`,
  codeRequired: 'This field is required',
  icdRequired: 'At least one ICD-10 diagnosis code is required',
  zipRequired: 'ZIP code is required',
  completeFields: 'Please complete all required fields',
  emptyItemsTitle: (items: string) => `No ${items} Found`,
  emptyItemsText: (items: string) => `There are no ${items} to display. Try adjusting your filters or search criteria.`,
  viewingRegion: (id: string) => `Viewing Region ${id}`,
  exportNotReady: 'Component not ready for export',
  exportBlobFailed: 'Failed to create image blob',
  exportFailed: 'Failed to export component. Please try again.',
  exportNone: 'No components were exported',
  exportManyFailed: 'Failed to export components. Please try again.',
  exportDone: 'Component exported successfully',
  exportManyDone: (n: number) => `Successfully exported ${n} component(s)`,
} as const

/** A ZIP code of the Atlas forms: 5 digits (the Generic Atlas ZIP, the chips of the custom-ZIP scope). */
export const ATLAS_ZIP_PATTERN = /^\d{5}$/

/**
 * The Generic Atlas search form (spec 2 §5): at least one diagnosis code ('This field is required'), and for a ZIP
 * search a 5-digit ZIP ('ZIP code is required', 'Please enter a valid 5-digit ZIP code').
 */
export const atlasGenericFormSchema = z
  .object({ codes: z.array(z.string()).min(1, ATLAS_MESSAGES.codeRequired), region: z.enum(['us', 'zip']), zip: z.string() })
  .superRefine((form, ctx) => {
    if (form.region !== 'zip') return
    const zip = form.zip.trim()
    if (zip === '') ctx.addIssue({ code: 'custom', path: ['zip'], message: ATLAS_MESSAGES.zipRequired })
    else if (!ATLAS_ZIP_PATTERN.test(zip)) ctx.addIssue({ code: 'custom', path: ['zip'], message: ATLAS_MESSAGES.invalidZip })
  })

/**
 * The /atlas-search query builder (spec 2 §2, §5): at least one condition ('Select at least one condition'), and with
 * custom ZIP codes at least one valid 5-digit ZIP ('Enter at least one ZIP code').
 */
export const atlasSearchFormSchema = z
  .object({
    codes: z.array(z.string()).min(1, ATLAS_MESSAGES.selectCondition),
    scope: z.enum(['national', 'custom-zips']),
    zips: z.array(z.string()),
  })
  .superRefine((form, ctx) => {
    if (form.scope === 'custom-zips' && !form.zips.some((zip) => ATLAS_ZIP_PATTERN.test(zip)))
      ctx.addIssue({ code: 'custom', path: ['zips'], message: ATLAS_MESSAGES.enterZip })
  })

// ---- input pieces --------------------------------------------------------------------------------------

const flag = z.union([z.boolean(), z.stringbool()]).optional().describe('true or false')

const age = z.coerce.number({ error: 'Expected an age' }).int('Expected a whole number of years').min(0).max(130)

/** gender M or F; anything else (all) means both (spec 2 §5) */
const gender = z.enum(['M', 'F']).optional()

/**
 * The generic Atlas query (spec 2 §3; spec 4 §5). The seed's other reading of the same call (icd10,
 * granularity, region, regionType, bypassCache) is accepted too; the documented names win.
 */
export const atlasGenericQuerySchema = z.object({
  icd10_cm_union_csv: z.string().max(2000).optional().describe('comma-separated ICD-10-CM codes or prefixes; none = all conditions'),
  tile_granularity: z.enum(TILE_GRANULARITIES).optional().describe('STATE (default), COUNTY or ZIP_CODE_50KM'),
  search_within_region: z.string().trim().max(6000).optional().describe("'US', a state (CA) or ZIP codes (comma-joined)"),
  search_within_region_type: z.enum(REGION_TYPES).optional().describe('COUNTRY, STATE (default) or ZIP_CODE_50KM'),
  include_census_data: flag,
  include_hco_points: flag,
  _bypass_cache: flag,
  gender,
  min_age: age.optional(),
  max_age: age.optional(),
  icd10: z.string().max(2000).optional().describe('alias of icd10_cm_union_csv'),
  granularity: z.enum(TILE_GRANULARITIES).optional().describe('alias of tile_granularity'),
  region: z.string().trim().max(6000).optional().describe('alias of search_within_region'),
  regionType: z.enum(REGION_TYPES).optional().describe('alias of search_within_region_type'),
  bypassCache: flag.describe('alias of _bypass_cache'),
})
// no component id: @fastify/swagger cannot resolve a $ref'd query string schema
export type AtlasGenericQuery = z.input<typeof atlasGenericQuerySchema>

// ---- GeoJSON output (spec 2 §3) ---------------------------------------------------------------------------

export const atlasMetricSchema = z
  .object({
    code: z.string(),
    name: z.string(),
    description: z.string(),
    unit: z.enum(METRIC_UNITS),
    value: z.object({ v: z.union([z.number(), z.string()]).nullable(), value_kind: z.enum(['INT', 'FLOAT', 'STRING']) }),
  })
  .meta({ id: 'AtlasMetric' })
export type AtlasMetric = z.infer<typeof atlasMetricSchema>
export const metricGroupSchema = z
  .object({ type: z.enum(METRIC_GROUPS), metrics: z.array(atlasMetricSchema) })
  .meta({ id: 'AtlasMetricGroup' })
export type AtlasMetricGroup = z.infer<typeof metricGroupSchema>
export const metadataItemSchema = z.object({ code: z.string(), label: z.string(), value: z.union([z.string(), z.number()]).nullable() })
export type AtlasMetadataItem = z.infer<typeof metadataItemSchema>
export const atlasBadgeSchema = z.object({
  code: z.string(),
  type: z.enum(['OPPORTUNITY', 'RISK', 'SUCCESS', 'WARNING', 'INFO', 'TOP_PRESCRIBER']),
  label: z.string(),
  description: z.string(),
})
export type AtlasBadge = z.infer<typeof atlasBadgeSchema>

/**
 * Point, Polygon or MultiPolygon. The coordinates are not walked by the schema: a national county map has
 * hundreds of thousands of positions, and validating each would cost more than computing the answer.
 */
export const geometrySchema = z.object({
  type: z.enum(['Point', 'Polygon', 'MultiPolygon']),
  coordinates: z.array(z.unknown()).describe('GeoJSON positions (RFC 7946) of the geometry type'),
})

export const REGION_ENTITY_TYPES = ['STATE', 'COUNTY', 'ZIP_CODE', 'FACILITY'] as const
export const atlasFeaturePropertiesSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    value: z.number().int().describe('distinct patients'),
    code: z.string(),
    territory_name: z.string(),
    primary_metric_value: z.number(),
    primary_metric: z.string(),
    entity_type: z.enum(REGION_ENTITY_TYPES),
    has_marker: z.boolean(),
    fill: z.string(),
    'fill-opacity': z.number(),
    stroke: z.string(),
    score: z.number().nullable().describe('prevalence per 100,000 residents (Enterprise); null without census figures'),
    hotspot_score: z.number().nullable().describe('Getis-Ord Gi* z-score (Enterprise)'),
    population: z.number().int().nullable().optional(),
    prevalence_per_100k: z.number().nullable().optional(),
    metrics: z.array(atlasMetricSchema),
    additional_metadata: z.array(metadataItemSchema),
    latitude: z.number().optional(),
    longitude: z.number().optional(),
    zip_code: z.string().optional(),
    city: z.string().optional(),
    state: z.string().optional(),
    npi: z.string().nullable().optional(),
  })
  .meta({ id: 'AtlasFeatureProperties' })
export type AtlasFeatureProperties = z.infer<typeof atlasFeaturePropertiesSchema>
export const atlasFeatureSchema = z.object({
  type: z.literal('Feature'),
  id: z.union([z.string(), z.number()]).optional(),
  geometry: geometrySchema,
  properties: atlasFeaturePropertiesSchema,
})
export type AtlasGeoFeature = z.infer<typeof atlasFeatureSchema>

export const atlasChoroplethLegendSchema = z
  .object({
    type: z.enum(['GRADIENT', 'CATEGORICAL']),
    metric_config: z.object({
      title: z.string(),
      value_format: z.enum(VALUE_FORMATS),
      value_suffix: z.string(),
    }),
    min_value: z.number(),
    max_value: z.number(),
    items: z.array(legendItemSchema),
  })
  .meta({ id: 'AtlasChoroplethLegend' })
export type AtlasChoroplethLegend = z.infer<typeof atlasChoroplethLegendSchema>

export const atlasSummarySchema = z.object({
  total_patients: z.number().int(),
  region_count: z.number().int(),
  codes: z.array(z.string()).describe('the normalised codes; empty = all conditions'),
  tile_granularity: z.enum(TILE_GRANULARITIES),
  search_within_region: z.string(),
  search_within_region_type: z.enum(REGION_TYPES),
  region_name: z.string(),
  plan_tier: planTierSchema,
})
export const atlasGenericResponseSchema = z
  .object({
    geojson: z.object({ type: z.literal('FeatureCollection'), features: z.array(atlasFeatureSchema) }),
    choropleth_legend: atlasChoroplethLegendSchema,
    summary: atlasSummarySchema,
  })
  .meta({ id: 'AtlasGenericResponse' })
export type AtlasGenericResponse = z.infer<typeof atlasGenericResponseSchema>

// ---- drill-down (spec 2 §3, §7) ---------------------------------------------------------------------------

export const atlasGeoFilterInputSchema = z.object({
  code: z.literal('region').default('region'),
  filter_value: z.object({
    filter_value_kind: z.literal('GEO_WITHIN_REGION').default('GEO_WITHIN_REGION'),
    region_level: z.enum(REGION_TYPES).default('COUNTRY'),
    search_within_region: z.string().trim().max(6000).default('US'),
    granularity: z.enum(TILE_GRANULARITIES).optional(),
  }),
})
export const DRILLDOWN_FILTER_CODES = ['state', 'facility_id', 'facility_npi', 'health_system_id'] as const
export const atlasFilterInputSchema = z.object({
  code: z.enum(DRILLDOWN_FILTER_CODES),
  filter_value: z.union([z.string().max(100), z.number()]),
})
export const DRILLDOWN_SORT_CODES = [
  'patient_count',
  'num_patients',
  'state',
  'name',
  'provider_count',
  'claim_count',
  'opportunity_score',
] as const
export const atlasSortInputSchema = z.object({
  code: z.enum(DRILLDOWN_SORT_CODES),
  sort_direction: z.enum(['ASC', 'DESC']).default('DESC'),
})

export const atlasDrilldownRequestSchema = z
  .object({
    drilldown_type: z.enum(DRILLDOWN_TYPES),
    icd10_cm_union_csv: z.string().max(2000).optional(),
    geo_filter_input: atlasGeoFilterInputSchema.optional(),
    filter_inputs: z.array(atlasFilterInputSchema).max(10).default([]),
    include_payer_mix: z.boolean().default(true),
    page: z.number().int().min(0).max(100_000).default(0),
    page_size: z.number().int().min(1).max(ATLAS_MAX_PAGE_SIZE).default(ATLAS_DEFAULT_PAGE_SIZE),
    sort_input: atlasSortInputSchema.optional(),
    _bypass_cache: z.boolean().optional(),
    gender: z.enum(['M', 'F']).nullable().optional(),
    min_age: age.nullable().optional(),
    max_age: age.nullable().optional(),
  })
  .meta({ id: 'AtlasDrilldownRequest' })
export type AtlasDrilldownRequest = z.input<typeof atlasDrilldownRequestSchema>

export const ATLAS_INSIGHT_ENTITY_TYPES = ['CountryInsight', 'COUNTRY', 'STATE', 'FACILITY', 'HEALTH_SYSTEM', 'PROVIDER'] as const
export const insightEntitySchema = z
  .object({
    entity_type: z.enum(ATLAS_INSIGHT_ENTITY_TYPES),
    account_type: z.enum(['HEALTH_SYSTEM', 'FACILITY']).nullable(),
    citrus_id: z.string(),
    display_name: z.string(),
    parent_citrus_id: z.string().nullable(),
    territoryLevel: z.string().nullable(),
    badges: z.array(atlasBadgeSchema),
    additional_metadata: z.array(metadataItemSchema),
    summary_md: z.string(),
    metrics: z.array(metricGroupSchema),
    entity: z.object({
      name: z.string(),
      full_name: z.string().nullable(),
      parent_name: z.string().nullable(),
      npi: z.string().nullable(),
      citrus_id: z.string(),
      healthsystem_id: z.string().nullable(),
      id: z.string(),
      zip_code: z.string().nullable(),
      latitude: z.number().nullable(),
      longitude: z.number().nullable(),
      city: z.string().nullable(),
      state: z.string().nullable(),
      title: z.string().nullable(),
      cms_specialization: z.string().nullable(),
      facility_name: z.string().nullable(),
      address: z.string().nullable(),
    }),
    // flat copies of the facility fields the clients read (spec 2 §3: facility entries carry these)
    zip_code: z.string().nullable(),
    name: z.string(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
  })
  .meta({ id: 'AtlasInsight' })
export type AtlasInsight = z.infer<typeof insightEntitySchema>

export const atlasPageResultsSchema = z.object({
  results: z.array(insightEntitySchema),
  page: z.number().int(),
  page_size: z.number().int(),
  total_results: z.number().int(),
  total_pages: z.number().int(),
})
export const atlasDrilldownResponseSchema = z
  .object({ page_results: atlasPageResultsSchema, plan_tier: planTierSchema })
  .meta({ id: 'AtlasDrilldownResponse' })
export type AtlasDrilldownResponse = z.infer<typeof atlasDrilldownResponseSchema>

// ---- the other calls (decision 0034) ---------------------------------------------------------------------

/** GET /atlas/: what the caller's company may do in Atlas, and the data the screens offer. */
export const atlasHomeResponseSchema = z
  .object({
    plan_tier: planTierSchema,
    plan_tier_name: z.string(),
    features: z.record(z.string(), z.object({ unlocked: z.boolean(), required_tier: planTierSchema, required_tier_name: z.string() })),
    use_cases: z.array(z.object({ code: z.string(), name: z.string(), description: z.string() })),
    tile_granularities: z.array(z.enum(TILE_GRANULARITIES)),
    region_types: z.array(z.enum(REGION_TYPES)),
    data: z.object({ patients: z.number().int(), states: z.number().int(), latest_load_at: z.string().nullable() }),
  })
  .meta({ id: 'AtlasHome' })
export type AtlasHomeResponse = z.infer<typeof atlasHomeResponseSchema>

export const ATLAS_USE_CASES = {
  conditions: { name: 'Condition search', description: 'Patients by ICD-10-CM condition, by state and hospital' },
} as const
export const atlasUseCaseParamsSchema = z.object({ use_case: z.string().max(50) })
export const atlasListParamsSchema = z.object({
  use_case: z.string().max(50),
  page: z.coerce.number({ error: 'page must be a number' }).int().min(1).max(100_000).describe('1-based'),
})
/** The condition-based screen's query (spec 2 §7 payload), as query parameters. */
export const atlasConditionQuerySchema = z.object({
  icd10_cm_union_csv: z.string().max(2000).optional(),
  search_within_region: z.string().trim().max(6000).optional(),
  search_within_region_type: z.enum(REGION_TYPES).optional(),
  gender,
  min_age: age.optional(),
  max_age: age.optional(),
  _bypass_cache: flag,
})
export const atlasHeatmapQuerySchema = atlasConditionQuerySchema.extend({
  tile_granularity: z.enum(TILE_GRANULARITIES).optional(),
})
export const heatmapCellSchema = z.object({
  id: z.string(),
  label: z.string(),
  patients: z.number().int(),
  latitude: z.number(),
  longitude: z.number(),
  weight: z.number().describe('patients / the largest cell, 0..1'),
})
export const atlasHeatmapResponseSchema = z
  .object({
    use_case: z.string(),
    tile_granularity: z.enum(TILE_GRANULARITIES),
    max_patients: z.number().int(),
    cells: z.array(heatmapCellSchema),
  })
  .meta({ id: 'AtlasHeatmap' })
export type AtlasHeatmapResponse = z.infer<typeof atlasHeatmapResponseSchema>

export const atlasListQuerySchema = atlasConditionQuerySchema.extend({
  kind: z.enum(['state', 'hospital']).default('state'),
  state: z.string().trim().length(2).optional().describe('hospital rows: the state'),
  page_size: z.coerce
    .number()
    .int()
    .max(100, 'page_size must be 10, 25, 50 or 100')
    .refine((n) => (ATLAS_PAGE_SIZES as readonly number[]).includes(n), 'page_size must be 10, 25, 50 or 100')
    .default(ATLAS_DEFAULT_PAGE_SIZE),
  sort: z
    .enum(['state', 'hospitalName', 'city', 'patients', 'commercialPercent', 'medicarePercent', 'medicaidPercent', 'hcps', 'hotspot'])
    .optional(),
  direction: z.enum(['asc', 'desc']).optional(),
  format: z.enum(['json', 'csv']).default('json').describe('csv = every row as a CSV file (Business+)'),
})
/** State table row (spec 2 §3); hospital rows add hospitalName and city. */
export const atlasListRowSchema = z.object({
  id: z.string(),
  state: z.string(),
  patients: z.number().int(),
  commercialPercent: z.number(),
  medicarePercent: z.number(),
  medicaidPercent: z.number(),
  hcps: z.number().int(),
  hotspot: z.number().nullable(),
  hospitalName: z.string().optional(),
  city: z.string().optional(),
  zip_code: z.string().optional(),
  latitude: z.number().optional(),
  longitude: z.number().optional(),
})
export type AtlasListRow = z.infer<typeof atlasListRowSchema>
export const atlasListResponseSchema = z
  .object({
    use_case: z.string(),
    kind: z.enum(['state', 'hospital']),
    rows: z.array(atlasListRowSchema),
    page: z.number().int(),
    page_size: z.number().int(),
    total_rows: z.number().int(),
    total_pages: z.number().int(),
  })
  .meta({ id: 'AtlasList' })
export type AtlasListResponse = z.infer<typeof atlasListResponseSchema>

export const atlasTileParamsSchema = z.object({
  z: z.coerce.number().int().min(0).max(ATLAS_TILE_MAX_ZOOM),
  x: z.coerce.number().int().min(0).max(INT32_MAX, INPUT_MESSAGES.int32TooLarge),
  y: z.coerce.number().int().min(0).max(INT32_MAX, INPUT_MESSAGES.int32TooLarge),
})

// ---- endpoints -------------------------------------------------------------------------------------------

const atlasTags = ['atlas'] as const
const atlasSecurity = ['bearer', 'shareToken'] as const
const atlasErrors = [400, 401, 402, 403] as const

export const atlasEndpoints = {
  home: defineEndpoint({
    method: 'GET',
    path: '/atlas/',
    summary: "The caller's Atlas plan tier with the features it unlocks, the use cases and the data loaded",
    tags: atlasTags,
    security: atlasSecurity,
    response: atlasHomeResponseSchema,
    errors: atlasErrors,
  }),
  generic: defineEndpoint({
    method: 'GET',
    path: '/atlas/generic',
    summary:
      'Distinct patients with any of the codes by region: a GeoJSON FeatureCollection with a legend, census prevalence and Gi* hotspots',
    tags: atlasTags,
    security: atlasSecurity,
    query: atlasGenericQuerySchema,
    response: atlasGenericResponseSchema,
    errors: atlasErrors,
  }),
  drilldown: defineEndpoint({
    method: 'POST',
    path: '/atlas/drilldown',
    summary: 'Insight entities of a drill-down level (COUNTRY, STATE, FACILITY, PROVIDER) with metrics and payer mix, paged and sorted',
    tags: atlasTags,
    security: atlasSecurity,
    body: atlasDrilldownRequestSchema,
    response: atlasDrilldownResponseSchema,
    errors: [...atlasErrors, 404],
  }),
  heatmap: defineEndpoint({
    method: 'GET',
    path: '/atlas-v2/heatmap/{use_case}/',
    summary: 'Weighted points (patients per region centre, 0..1) for a heatmap layer of a use case',
    tags: atlasTags,
    security: atlasSecurity,
    params: atlasUseCaseParamsSchema,
    query: atlasHeatmapQuerySchema,
    response: atlasHeatmapResponseSchema,
    errors: [...atlasErrors, 404],
  }),
  list: defineEndpoint({
    method: 'GET',
    path: '/atlas-v2/list/{use_case}/{page}',
    summary: "The condition-based List tab's state or hospital rows, one 1-based page; format=csv exports every row (Business+)",
    tags: atlasTags,
    security: atlasSecurity,
    params: atlasListParamsSchema,
    query: atlasListQuerySchema,
    response: atlasListResponseSchema,
    errors: [...atlasErrors, 404],
  }),
  tile: defineEndpoint({
    method: 'GET',
    path: '/atlas/tiles/{z}/{x}/{y}.mvt',
    summary: 'One Mapbox vector tile of the generic query: layer regions (patients, fill, hotspot) and facilities',
    tags: atlasTags,
    security: atlasSecurity,
    params: atlasTileParamsSchema,
    query: atlasGenericQuerySchema,
    response: z.any().describe('application/vnd.mapbox-vector-tile'),
    errors: atlasErrors,
  }),
} as const
