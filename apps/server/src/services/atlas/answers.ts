import {
  ATLAS_FEATURE_TIERS,
  ATLAS_MESSAGES,
  ATLAS_USE_CASES,
  PLAN_TIER_NAMES,
  REGION_TYPES,
  TILE_GRANULARITIES,
  tierAllows,
  type atlasEndpoints,
  type AtlasFeature,
  type AtlasGenericQuery,
  type AtlasGenericResponse,
  type AtlasHomeResponse,
  type AtlasInsight,
  type AtlasListRow,
  type PlanTier,
  type RegionType,
  type TileGranularity,
} from '@citrus/contracts'
import type pg from 'pg'
import type { z } from 'zod'
import { atlasPatients, EVERY_PATIENT } from '../../engines/atlas/patient-index.js'
import { kyselyOf, type Row } from '../../db/kysely.js'
import { readPoolForRequest } from '../../db/replicas.js'
import { badRequest, notFound } from '../../lib/errors.js'
import {
  countryRow,
  emptyMetrics,
  entityPage,
  insight,
  metricGroups,
  statePageFirst,
  stateRows,
  type DrilldownQuery,
  type GroupMetrics,
} from './drilldown.js'
import {
  tileRegionProperties,
  genericResponseJson,
  genericResult,
  regionAt,
  round,
  share,
  type GenericResult,
  type RegionResult,
} from './generic.js'
import { filtersOf, resolveScope, type AtlasFilters, type AtlasScope } from './query.js'
import { regionTile, type TileFeature } from './tiles.js'
import { FEATURE_MESSAGES, requireFeature } from './tiers.js'

/**
 * What each Atlas endpoint answers (routes/atlas/index.ts adapts them to HTTP): the contract's parsed input, the
 * caller's plan tier and the data version in, the contract's answer out. `version` is the request's
 * (requestDataVersion). An answer's reads are read-only: they run on a read replica that holds the request's data
 * version, else on the primary (readPoolForRequest, docs/decisions/0078; without replicas the version is read only
 * once the input is valid).
 */
type Input<E extends keyof typeof atlasEndpoints, K extends 'query' | 'body' | 'params'> = (typeof atlasEndpoints)[E] extends {
  [key in K]: infer S extends z.ZodType
}
  ? z.output<S>
  : never
type Version = () => Promise<string>

/** GET /atlas/: the plan tier's features, the use cases and the data loaded. */
export async function atlasHome(pool: pg.Pool, tier: PlanTier, version: Version): Promise<AtlasHomeResponse> {
  const reader = await readPoolForRequest(pool, version)
  const v = await version()
  // the patients are the patient engine's rows of every patient, counted one way: the index of the version, or while
  // it builds the same rows read from the database (docs/decisions/0080); the latest load is read where they are
  const [people, { rows }] = await Promise.all([
    atlasPatients.rows(reader, v, EVERY_PATIENT),
    reader.query<{ states: number; latest: Row<'data_loads'>['finished_at'] }>(
      `SELECT (SELECT count(*)::int FROM states WHERE geom IS NOT NULL) AS states,
              (SELECT max(finished_at) FROM data_loads WHERE status = 'done') AS latest`,
    ),
  ])
  const data = { patients: people.size, ...rows[0]! }
  return {
    plan_tier: tier,
    plan_tier_name: PLAN_TIER_NAMES[tier],
    features: Object.fromEntries(
      (Object.keys(ATLAS_FEATURE_TIERS) as AtlasFeature[]).map((feature) => [
        feature,
        {
          unlocked: tierAllows(tier, feature),
          required_tier: ATLAS_FEATURE_TIERS[feature],
          required_tier_name: PLAN_TIER_NAMES[ATLAS_FEATURE_TIERS[feature]],
        },
      ]),
    ),
    use_cases: Object.entries(ATLAS_USE_CASES).map(([code, useCase]) => ({ code, ...useCase })),
    tile_granularities: [...TILE_GRANULARITIES],
    region_types: [...REGION_TYPES],
    data: { patients: data.patients, states: data.states, latest_load_at: data.latest ? data.latest.toISOString() : null },
  }
}

type ParsedGenericQuery = AtlasGenericQuery & { min_age?: number; max_age?: number }

/** The documented names, else the other reading's aliases (icd10, granularity, region, regionType, bypassCache). */
async function readGenericQuery(pool: pg.Pool, query: ParsedGenericQuery, tier: PlanTier) {
  const scope = await resolveScope(pool, query.search_within_region ?? query.region, query.search_within_region_type ?? query.regionType)
  if (scope.type === 'ZIP_CODE_50KM') requireFeature(tier, 'customZips', FEATURE_MESSAGES.customZips)
  const filters = filtersOf({
    codes: query.icd10_cm_union_csv ?? query.icd10,
    gender: query.gender,
    min_age: query.min_age,
    max_age: query.max_age,
  })
  const granularity: TileGranularity = query.tile_granularity ?? query.granularity ?? 'STATE'
  const bypass = Boolean(query._bypass_cache ?? query.bypassCache ?? false)
  const census = query.include_census_data === undefined ? scope.type === 'ZIP_CODE_50KM' : Boolean(query.include_census_data)
  const points = Boolean(query.include_hco_points)
  if (points) requireFeature(tier, 'facilityLists', FEATURE_MESSAGES.hcoPoints)
  return { scope, filters, granularity, bypass, census, points }
}

const HCO_POINT_LIMIT = 1000
const TILE_CACHE_LIMIT = 500
const tileCache = new WeakMap<GenericResult, Map<string, Buffer>>()
const regionMaps = new WeakMap<GenericResult, Map<string, number>>()

const catalogPositions = new WeakMap<GenericResult['catalog'], Map<string, number>>()

/**
 * A region of a result by id (made from the result's columns). A result over every region of its catalog (the
 * national map) lists them in the catalog's order, so the positions kept once per catalog serve every result of
 * it, recounted ones included; any other result gets a map of its own (kept with it).
 */
function regionsById(result: GenericResult): (id: string) => RegionResult | undefined {
  const { catalog, list } = result
  const byMap = (id: string) => {
    let map = regionMaps.get(result)
    if (!map) regionMaps.set(result, (map = new Map(list.map((region, i) => [region.id, i]))))
    const at = map.get(id)
    return at === undefined ? undefined : regionAt(result, at)
  }
  if (list.length !== catalog.size) return byMap
  let positions = catalogPositions.get(catalog)
  if (!positions) catalogPositions.set(catalog, (positions = new Map([...catalog.keys()].map((id, i) => [id, i]))))
  const known = positions
  return (id) => {
    const at = known.get(id)
    // the id at the position is checked: a result in another order is looked up by id instead
    return at !== undefined && list[at]?.id === id ? regionAt(result, at) : byMap(id)
  }
}

/** Facilities of the region with their patients of the query, as point features (has_marker). */
async function facilityPoints(
  pool: pg.Pool,
  filters: AtlasFilters,
  scope: AtlasScope,
  tier: PlanTier,
  version: string,
): Promise<AtlasGenericResponse['geojson']['features']> {
  const page = await entityPage(pool, drilldownQuery('FACILITY', filters, scope, { pageSize: HCO_POINT_LIMIT, version }))
  const scoreAllowed = tierAllows(tier, 'score')
  return page.rows
    .filter((row) => typeof row.details.latitude === 'number' && typeof row.details.longitude === 'number')
    .map((row) => {
      const lat = row.details.latitude as number
      const lng = row.details.longitude as number
      return {
        type: 'Feature' as const,
        id: `facility-${row.id}`,
        geometry: { type: 'Point' as const, coordinates: [round(lng, 6), round(lat, 6)] },
        properties: {
          id: row.id,
          label: row.name,
          value: row.metrics.patients,
          code: row.id,
          territory_name: row.name,
          primary_metric_value: row.metrics.patients,
          primary_metric: 'patient_count',
          entity_type: 'FACILITY' as const,
          has_marker: true,
          fill: '#1C7ED6',
          'fill-opacity': 0.9,
          stroke: '#FFFFFF',
          score: scoreAllowed ? row.opportunity : null,
          hotspot_score: null,
          metrics: metricGroups('FACILITY', row.metrics, { payerMix: true, opportunity: null, tier }).flatMap((g) => g.metrics),
          additional_metadata: [],
          latitude: lat,
          longitude: lng,
          zip_code: (row.details.zip_code as string | null) ?? undefined,
          city: (row.details.city as string | null) ?? undefined,
          state: (row.details.state as string | null) ?? undefined,
          npi: (row.details.npi as string | null) ?? null,
        },
      }
    })
}

function drilldownQuery(
  type: DrilldownQuery['type'],
  filters: AtlasFilters,
  scope: AtlasScope,
  overrides: Partial<DrilldownQuery> = {},
): DrilldownQuery {
  return {
    type,
    filters,
    scope,
    facilityId: null,
    healthSystemId: null,
    state: null,
    sort: { code: 'patient_count', direction: 'DESC' },
    page: 0,
    pageSize: 25,
    ...overrides,
  }
}

const stateSummary = (name: string, m: GroupMetrics) =>
  `**${name}**: ${m.patients.toLocaleString('en-US')} patients, ${m.providers.toLocaleString('en-US')} providers, ${m.claims.toLocaleString('en-US')} claims.`

/** The generic Atlas result of a state-granularity country search (for the states' Gi* in the drill-down). */
async function stateHotspots(
  pool: pg.Pool,
  filters: AtlasFilters,
  scope: AtlasScope,
  bypass: boolean,
  version: string,
): Promise<GenericResult> {
  return genericResult(pool, { filters, scope, granularity: 'STATE', bypass, version })
}

/**
 * GET /atlas/generic: the GeoJSON answer as JSON text with the regions' GeoJSON spliced in (the contract test checks
 * it against the schema), and the identity its gzip bytes may be kept under per data version: what makes the body
 * (not the caller), so another company's same question is not compressed again; null with _bypass_cache
 * (docs/decisions/0077).
 */
export async function atlasGeneric(
  pool: pg.Pool,
  query: Input<'generic', 'query'>,
  tier: PlanTier,
  version: Version,
): Promise<{ key: string | null; version: string; body: () => Buffer }> {
  const reader = await readPoolForRequest(pool, version)
  const q = await readGenericQuery(reader, query as ParsedGenericQuery, tier)
  const v = await version()
  const result = await genericResult(reader, { ...q, version: v })
  const points = q.points ? await facilityPoints(reader, q.filters, q.scope, tier, v) : []
  const key = q.bypass
    ? null
    : JSON.stringify(['atlas-generic', q.filters, q.scope.type, q.scope.value, q.granularity, tier, q.census, q.points])
  return { key, version: v, body: () => genericResponseJson(result, { tier, census: q.census, points }) }
}

/** GET /atlas/tiles/{z}/{x}/{y}.mvt: one vector tile of the generic query (kept with its result). */
export async function atlasTile(
  pool: pg.Pool,
  { z, x, y }: Input<'tile', 'params'>,
  query: Input<'tile', 'query'>,
  tier: PlanTier,
  version: Version,
): Promise<Buffer> {
  if (x >= 2 ** z || y >= 2 ** z) throw badRequest(ATLAS_MESSAGES.invalidTile)
  const reader = await readPoolForRequest(pool, version)
  const q = await readGenericQuery(reader, query as ParsedGenericQuery, tier)
  const v = await version()
  const result = await genericResult(reader, { ...q, version: v })
  // tiles of a result are kept with it (a new data load or _bypass_cache makes a new result)
  let tiles = tileCache.get(result)
  if (!tiles) tileCache.set(result, (tiles = new Map()))
  const tileKey = `${tier}|${q.census}|${q.points}|${z}/${x}/${y}`
  const cached = tiles.get(tileKey)
  if (cached) return cached
  // the pre-cut geometry of the catalog with this result's attributes (docs/decisions/0052)
  const regionOf = regionsById(result)
  const options = { tier, census: q.census }
  const propertiesOf = (id: string) => {
    const r = regionOf(id)
    return r ? tileRegionProperties(result, r, options) : null
  }
  const points: TileFeature[] = (q.points ? await facilityPoints(reader, q.filters, q.scope, tier, v) : []).map((feature) => ({
    id: feature.properties.id,
    geometry: JSON.stringify(feature.geometry),
    properties: {
      id: feature.properties.id,
      label: feature.properties.label,
      value: feature.properties.value,
      entity_type: 'FACILITY',
      npi: feature.properties.npi ?? null,
    },
  }))
  const tile = regionTile(q.granularity, result.catalog, { z, x, y }, propertiesOf, points)
  if (tiles.size >= TILE_CACHE_LIMIT) tiles.delete(tiles.keys().next().value as string)
  tiles.set(tileKey, tile)
  return tile
}

/** The facility a drill-down's filter names (by id or NPI); 404 when there is none. */
async function facilityOf(pool: pg.Pool, ref: unknown, byId: boolean): Promise<number> {
  const facilities = kyselyOf(pool).selectFrom('facilities').select('id')
  const row = await (byId ? facilities.where('id', '=', Number(ref) || 0) : facilities.where('npi', '=', String(ref))).executeTakeFirst()
  if (!row) throw notFound(ATLAS_MESSAGES.facilityNotFound)
  return row.id
}

/** POST /atlas/drilldown: a page of the insight cards of a level. */
export async function atlasDrilldown(pool: pg.Pool, body: Input<'drilldown', 'body'>, tier: PlanTier, version: Version) {
  const reader = await readPoolForRequest(pool, version)
  const geo = body.geo_filter_input?.filter_value
  const scope = await resolveScope(reader, geo?.search_within_region, geo?.region_level as RegionType | undefined)
  if (scope.type === 'ZIP_CODE_50KM') requireFeature(tier, 'customZips', FEATURE_MESSAGES.customZips)
  if (body.drilldown_type === 'FACILITY') requireFeature(tier, 'facilityLists', FEATURE_MESSAGES.facilities)
  if (body.drilldown_type === 'PROVIDER') requireFeature(tier, 'facilityLists', FEATURE_MESSAGES.providers)
  const filters = filtersOf({ codes: body.icd10_cm_union_csv, gender: body.gender, min_age: body.min_age, max_age: body.max_age })
  const filterValue = (code: string) => body.filter_inputs.find((f) => f.code === code)?.filter_value
  const facilityRef = filterValue('facility_id') ?? filterValue('facility_npi')
  const facilityId = facilityRef === undefined ? null : await facilityOf(reader, facilityRef, filterValue('facility_id') !== undefined)
  const healthSystem = filterValue('health_system_id')
  const stateFilter = filterValue('state')
  const v = await version()
  const sortCode = body.sort_input?.code ?? (body.drilldown_type === 'STATE' ? 'patient_count' : 'patient_count')
  const q = drilldownQuery(body.drilldown_type, filters, scope, {
    facilityId,
    healthSystemId: healthSystem === undefined ? null : Number(healthSystem) || 0,
    state: stateFilter === undefined ? null : String(stateFilter).toUpperCase(),
    sort: { code: sortCode, direction: body.sort_input?.sort_direction ?? 'DESC' },
    page: body.page,
    pageSize: body.page_size,
    bypass: Boolean(body._bypass_cache),
    version: v,
  })
  const bypass = Boolean(body._bypass_cache)
  let results: AtlasInsight[]
  let total: number
  if (body.drilldown_type === 'COUNTRY') {
    const m = await countryRow(reader, q)
    const groups = metricGroups('COUNTRY', m, { payerMix: body.include_payer_mix, opportunity: null, tier })
    const all = [
      insight(
        'CountryInsight',
        { id: scope.value, name: scope.name, parent: null, level: scope.type },
        groups,
        stateSummary(scope.name, m),
      ),
    ]
    total = all.length
    results = all.slice(q.page * q.pageSize, (q.page + 1) * q.pageSize)
  } else if (body.drilldown_type === 'STATE') {
    // The patients of each state are the generic STATE result's (the same distinct patients, from the same
    // engine rows): unless the order needs the claim-level counts (providers, claims) or a facility filter
    // changes who counts, the page is chosen from them and only its states' claim rows are walked. Otherwise
    // every state is counted, alongside the hotspots (docs/decisions/0057).
    const pageFirst = statePageFirst(q)
    let byState: Map<string, GroupMetrics> | null = null
    let hot: GenericResult
    if (pageFirst) hot = await stateHotspots(reader, filters, scope, bypass, v)
    else [hot, byState] = await Promise.all([stateHotspots(reader, filters, scope, bypass, v), stateRows(reader, q)])
    const candidates = hot.regions.filter((r) => (!q.state || r.region.id === q.state) && (!pageFirst || r.patients > 0))
    const rows = candidates
      .map((r) => ({ r, m: byState?.get(r.region.id) ?? emptyMetrics() }))
      .filter(({ m }) => pageFirst || m.patients > 0)
    const direction = q.sort.direction === 'ASC' ? 1 : -1
    const key = (row: (typeof rows)[number]): number | string => {
      switch (q.sort.code) {
        case 'state':
        case 'name':
          return row.r.region.label
        case 'provider_count':
          return row.m.providers
        case 'claim_count':
          return row.m.claims
        case 'opportunity_score':
          return row.r.score ?? -1
        default:
          return pageFirst ? row.r.patients : row.m.patients
      }
    }
    rows.sort((a, b) => {
      const ka = key(a)
      const kb = key(b)
      const c = typeof ka === 'string' ? ka.localeCompare(kb as string) : ka - (kb as number)
      return c !== 0 ? c * direction : a.r.region.id.localeCompare(b.r.region.id)
    })
    total = rows.length
    const page = rows.slice(q.page * q.pageSize, (q.page + 1) * q.pageSize)
    if (pageFirst) {
      byState = page.length > 0 ? await stateRows(reader, { ...q, states: page.map(({ r }) => r.region.id).sort() }) : new Map()
      for (const row of page) row.m = byState.get(row.r.region.id) ?? emptyMetrics()
    }
    results = page.map(({ r, m }) =>
      insight(
        'STATE',
        {
          id: r.region.id,
          name: r.region.label,
          parent: 'US',
          level: 'STATE',
          details: { state: r.region.id, latitude: round(r.region.latitude, 5), longitude: round(r.region.longitude, 5) },
        },
        metricGroups('STATE', m, { payerMix: body.include_payer_mix, opportunity: r.score, tier, prevalence: r.prevalence }),
        stateSummary(r.region.label, m),
      ),
    )
  } else {
    const page = await entityPage(reader, q)
    total = page.total
    results = page.rows.map((row) =>
      insight(
        body.drilldown_type === 'FACILITY' ? 'FACILITY' : 'PROVIDER',
        {
          id: row.id,
          name: row.name,
          parent:
            body.drilldown_type === 'FACILITY' ? (row.details.state as string | null) : facilityId === null ? null : String(facilityId),
          level: body.drilldown_type,
          details: row.details,
        },
        metricGroups(body.drilldown_type, row.metrics, { payerMix: body.include_payer_mix, opportunity: row.opportunity, tier }),
        stateSummary(row.name, row.metrics),
      ),
    )
  }
  return {
    page_results: { results, page: q.page, page_size: q.pageSize, total_results: total, total_pages: Math.ceil(total / q.pageSize) },
    plan_tier: tier,
  }
}

/** GET /atlas-v2/heatmap/{use_case}/: weighted cells of the patients per region. */
export async function atlasHeatmap(pool: pg.Pool, useCase: string, query: Input<'heatmap', 'query'>, tier: PlanTier, version: Version) {
  if (!(useCase in ATLAS_USE_CASES)) throw notFound(ATLAS_MESSAGES.unknownUseCase(useCase))
  const reader = await readPoolForRequest(pool, version)
  const q = await readGenericQuery(
    reader,
    {
      ...query,
      tile_granularity: query.tile_granularity ?? (query.search_within_region_type === 'ZIP_CODE_50KM' ? 'ZIP_CODE_50KM' : 'COUNTY'),
    } as ParsedGenericQuery,
    tier,
  )
  const result = await genericResult(reader, { ...q, version: await version() })
  const max = result.patients.reduce((a, b) => Math.max(a, b), 0)
  return {
    use_case: useCase,
    tile_granularity: q.granularity,
    max_patients: max,
    cells: result.list.flatMap((region, i) => {
      const patients = result.patients[i]!
      if (patients === 0) return []
      return [
        {
          id: region.id,
          label: region.label,
          patients,
          latitude: round(region.latitude, 5),
          longitude: round(region.longitude, 5),
          weight: round(patients / max, 4),
        },
      ]
    }),
  }
}

/**
 * GET /atlas-v2/list/{use_case}/{page}: the state or hospital rows, one page; with format=csv every row as CSV
 * text and its file name (`csv`) instead.
 */
export async function atlasList(
  pool: pg.Pool,
  { use_case: useCase, page }: Input<'list', 'params'>,
  query: Input<'list', 'query'>,
  tier: PlanTier,
  version: Version,
) {
  if (!(useCase in ATLAS_USE_CASES)) throw notFound(ATLAS_MESSAGES.unknownUseCase(useCase))
  if (query.format === 'csv') requireFeature(tier, 'csvExport', FEATURE_MESSAGES.csvExport)
  if (query.kind === 'hospital') requireFeature(tier, 'facilityLists', FEATURE_MESSAGES.facilities)
  const reader = await readPoolForRequest(pool, version)
  const scope = await resolveScope(reader, query.search_within_region, query.search_within_region_type)
  if (scope.type === 'ZIP_CODE_50KM') requireFeature(tier, 'customZips', FEATURE_MESSAGES.customZips)
  const filters = filtersOf({ codes: query.icd10_cm_union_csv, gender: query.gender, min_age: query.min_age, max_age: query.max_age })
  const scoreAllowed = tierAllows(tier, 'score')
  const v = await version()
  let rows: AtlasListRow[]
  const percentages = (m: GroupMetrics) => ({
    commercialPercent: round(share(m.commercial, m.patients) * 100, 1),
    medicarePercent: round(share(m.medicare, m.patients) * 100, 1),
    medicaidPercent: round(share(m.medicaid, m.patients) * 100, 1),
  })
  if (query.kind === 'hospital') {
    if (!query.state) throw badRequest('state is required for hospital rows')
    const stateScope = scope.type === 'COUNTRY' ? await resolveScope(reader, query.state, 'STATE') : scope
    const page = await entityPage(
      reader,
      drilldownQuery('FACILITY', filters, stateScope, { state: query.state.toUpperCase(), pageSize: 100_000, version: v }),
    )
    rows = page.rows.map((row) => ({
      id: row.id,
      state: String(row.details.state ?? ''),
      hospitalName: row.name,
      city: String(row.details.city ?? ''),
      zip_code: String(row.details.zip_code ?? ''),
      ...(typeof row.details.latitude === 'number' ? { latitude: row.details.latitude } : {}),
      ...(typeof row.details.longitude === 'number' ? { longitude: row.details.longitude } : {}),
      patients: row.metrics.patients,
      ...percentages(row.metrics),
      hcps: row.metrics.providers,
      hotspot: scoreAllowed ? row.opportunity : null,
    }))
  } else {
    const q = drilldownQuery('STATE', filters, scope, { version: v })
    const [byState, hot] = await Promise.all([stateRows(reader, q), stateHotspots(reader, filters, scope, Boolean(query._bypass_cache), v)])
    rows = hot.regions
      .map((r) => ({ r, m: byState.get(r.region.id) }))
      .filter((x): x is { r: (typeof hot.regions)[number]; m: GroupMetrics } => x.m !== undefined && x.m.patients > 0)
      .map(({ r, m }) => ({
        id: r.region.id,
        state: r.region.id,
        patients: m.patients,
        ...percentages(m),
        hcps: m.providers,
        hotspot: scoreAllowed ? r.score : null,
      }))
  }
  const sort = query.sort ?? (query.kind === 'hospital' ? 'patients' : 'state')
  const direction =
    (query.direction ?? (sort === 'state' || sort === 'hospitalName' || sort === 'city' ? 'asc' : 'desc')) === 'asc' ? 1 : -1
  rows.sort((a, b) => {
    const ka = a[sort as keyof AtlasListRow] ?? -1
    const kb = b[sort as keyof AtlasListRow] ?? -1
    const c = typeof ka === 'string' ? ka.localeCompare(String(kb)) : (ka as number) - (kb as number)
    return c !== 0 ? c * direction : a.id.localeCompare(b.id)
  })
  if (query.format === 'csv') {
    return {
      csv: { text: toCsv(rows, query.kind), filename: `atlas-${query.kind}-data-${new Date().toISOString().slice(0, 10)}.csv` },
      page: null,
    }
  }
  const pageSize = query.page_size
  return {
    csv: null,
    page: {
      use_case: useCase,
      kind: query.kind,
      rows: rows.slice((page - 1) * pageSize, page * pageSize),
      page,
      page_size: pageSize,
      total_rows: rows.length,
      total_pages: Math.ceil(rows.length / pageSize),
    },
  }
}

const CSV_COLUMNS = {
  state: [
    ['State', 'state'],
    ['Patients', 'patients'],
    ['%Commercial', 'commercialPercent'],
    ['%Medicare', 'medicarePercent'],
    ['%Medicaid', 'medicaidPercent'],
    ['HCPs', 'hcps'],
    ['Score', 'hotspot'],
  ],
  hospital: [
    ['Hospital', 'hospitalName'],
    ['City', 'city'],
    ['State', 'state'],
    ['Patients', 'patients'],
    ['%Commercial', 'commercialPercent'],
    ['%Medicare', 'medicarePercent'],
    ['%Medicaid', 'medicaidPercent'],
    ['HCPs', 'hcps'],
    ['Score', 'hotspot'],
  ],
} as const

export function toCsv(rows: readonly AtlasListRow[], kind: 'state' | 'hospital'): string {
  const columns = CSV_COLUMNS[kind]
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? '' : String(value)
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
  }
  return (
    [columns.map(([title]) => title).join(','), ...rows.map((row) => columns.map(([, key]) => cell(row[key])).join(','))].join('\r\n') +
    '\r\n'
  )
}
