import {
  ATLAS_PAYER_TYPES,
  tierAllows,
  type AtlasGenericResponse,
  type AtlasMetric,
  type AtlasChoroplethLegend,
  type PlanTier,
  type TileGranularity,
} from '@citrus/contracts'
import type pg from 'pg'
import { atlasPatients, countWithIndex, patientFilter, regionPositions, type RegionCounts } from '../../engines/atlas/patient-index.js'
import type { AtlasFilters, AtlasScope, PayerCounts } from '../../engines/atlas/rows.js'
import { primaryOf } from '../../db/replicas.js'
import { sharedBeforeStart } from '../../lib/coalesce.js'
import { reportCacheLookups } from '../../lib/engine-stats.js'
import { dataVersion, neighboursOf, regionCatalog, regionsInScope, type Region } from './regions.js'
import { buildLegend, giStar, neighbourhoods, scoreOfHotspot, type Neighbourhoods } from './statistics.js'

export type { PayerCounts }

/** One region of a result, before the plan tier and the census flag are applied. */
export interface RegionResult {
  region: Region
  patients: number
  payers: PayerCounts
  prevalence: number | null
  hotspot: number | null
  score: number | null
  fill: string
}

/**
 * A result's numbers are kept as columns, one entry per listed region (docs/decisions/0069): a national COUNTY
 * result is a handful of arrays instead of some ten thousand objects, which a cache of results would keep alive
 * and every garbage collection would copy or mark. `regions` gives them as objects (made on first use, kept);
 * the hot paths (tiles, the gzip body) read one region at a time with `regionAt`.
 */
export interface GenericResult {
  granularity: TileGranularity
  scope: AtlasScope
  filters: AtlasFilters
  /** the regions listed, in order */
  list: readonly Region[]
  /** per listed region */
  patients: readonly number[]
  /** per listed region its four payer counts (commercial, medicare, medicaid, other) */
  payers: Uint32Array
  /** per listed region, NaN for none */
  prevalence: Float64Array
  /** per listed region Gi* (not rounded), NaN for none */
  hotspot: Float64Array
  /** per listed region its legend colour */
  fills: readonly string[]
  /** every listed region as an object (made on first use) */
  readonly regions: readonly RegionResult[]
  legend: AtlasChoroplethLegend
  total: number
  /** which variable Gi* ran over */
  hotspotVariable: 'prevalence' | 'patients'
  /** every region of the granularity (the tiles' geometry is cut from it once) */
  catalog: ReadonlyMap<string, Region>
}

const PAYERS = ATLAS_PAYER_TYPES.length
if (PAYERS !== 4 || ATLAS_PAYER_TYPES.join() !== 'commercial,medicare,medicaid,other') throw new Error('Atlas: payer types changed')
const orNull = (v: number) => (Number.isNaN(v) ? null : v)

/** The listed region at position i as an object (a new one each call); Gi* rounded, its score taken before. */
export function regionAt(result: GenericResult, i: number): RegionResult {
  const k = i * PAYERS
  const { payers } = result
  const z = orNull(result.hotspot[i]!)
  return {
    region: result.list[i]!,
    patients: result.patients[i]!,
    payers: { commercial: payers[k]!, medicare: payers[k + 1]!, medicaid: payers[k + 2]!, other: payers[k + 3]! },
    prevalence: orNull(result.prevalence[i]!),
    hotspot: z === null ? null : round(z, 4),
    score: scoreOfHotspot(z),
    fill: result.fills[i]!,
  }
}

type ResultFields = Omit<GenericResult, 'regions'>

/** The per-region columns of a result that its JSON bodies are written from (writeRegionProperties). */
export type RegionColumns = Pick<GenericResult, 'list' | 'fills'> & {
  patients: ArrayLike<number>
  /** four per region */
  payers: ArrayLike<number>
  prevalence: ArrayLike<number>
  hotspot: ArrayLike<number>
}

class ColumnResult implements GenericResult {
  granularity!: TileGranularity
  scope!: AtlasScope
  filters!: AtlasFilters
  list!: readonly Region[]
  patients!: readonly number[]
  payers!: Uint32Array
  prevalence!: Float64Array
  hotspot!: Float64Array
  fills!: readonly string[]
  legend!: AtlasChoroplethLegend
  total!: number
  hotspotVariable!: 'prevalence' | 'patients'
  catalog!: ReadonlyMap<string, Region>
  #regions: RegionResult[] | null = null
  constructor(fields: ResultFields) {
    Object.assign(this, fields)
  }
  get regions(): readonly RegionResult[] {
    return (this.#regions ??= Array.from({ length: this.list.length }, (_, i) => regionAt(this, i)))
  }
}

/** A result from region objects (tests, synthetic bodies): the columns filled from them. */
export function resultOfRegions(
  fields: Omit<ResultFields, 'list' | 'patients' | 'payers' | 'prevalence' | 'hotspot' | 'fills'>,
  regions: readonly RegionResult[],
): GenericResult {
  const payers = new Uint32Array(regions.length * PAYERS)
  regions.forEach((r, i) => payers.set([r.payers.commercial, r.payers.medicare, r.payers.medicaid, r.payers.other], i * PAYERS))
  return new ColumnResult({
    ...fields,
    list: regions.map((r) => r.region),
    patients: regions.map((r) => r.patients),
    payers,
    prevalence: Float64Array.from(regions, (r) => r.prevalence ?? NaN),
    hotspot: Float64Array.from(regions, (r) => r.hotspot ?? NaN),
    fills: regions.map((r) => r.fill),
  })
}

/**
 * Distinct patients per region of the granularity with their payer types: counted by countWithIndex over the patient
 * engine's rows, the index of the data version (docs/decisions/0043) or, while it builds, an index of this query's
 * patients read from the database (docs/decisions/0080) on `pool`: the request's reader, a read replica that holds
 * its data version or the primary (docs/decisions/0078).
 */
export async function countByRegion(
  pool: pg.Pool,
  filters: AtlasFilters,
  scope: AtlasScope,
  granularity: TileGranularity,
  version?: string,
): Promise<RegionCounts> {
  const index = await atlasPatients.rows(pool, version ?? (await dataVersion(primaryOf(pool))), { filters, scope })
  const filter = await patientFilter(pool, index, filters, scope)
  return filter ? countWithIndex(index, filters, filter, granularity) : { names: [], counts: new Uint32Array(0) }
}

const cache = new Map<string, GenericResult>()
const CACHE_LIMIT = 200
/** look-ups of the cache (a `bypass` is none), for GET /metrics */
const cacheStats = { hits: 0, misses: 0 }
reportCacheLookups('atlas_generic', () => cacheStats)

/** The generic Atlas result of a query (cached per data version; `bypass` recomputes). */
export async function genericResult(
  pool: pg.Pool,
  input: { filters: AtlasFilters; scope: AtlasScope; granularity: TileGranularity; bypass: boolean; version?: string },
): Promise<GenericResult> {
  // the version the request read with its login principal (requestDataVersion), else read here, on the primary
  const version = input.version ?? (await dataVersion(primaryOf(pool)))
  const key = JSON.stringify([version, input.filters, input.scope.type, input.scope.value, input.granularity])
  const hit = input.bypass ? undefined : cache.get(key)
  if (hit) {
    cacheStats.hits++
    cache.delete(key)
    cache.set(key, hit)
    return hit
  }
  if (!input.bypass) cacheStats.misses++
  // identical queries that arrive before the count starts share it, with or without `bypass`: the tiles of a
  // new map view and the view's own request cost one count (docs/decisions/0066)
  return shareCount(key, async () => {
    const result = await computeGeneric(pool, input, version)
    cache.set(key, result)
    while (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string)
    return result
  })
}
const shareCount = sharedBeforeStart<GenericResult>()

async function computeGeneric(
  pool: pg.Pool,
  { filters, scope, granularity }: { filters: AtlasFilters; scope: AtlasScope; granularity: TileGranularity },
  version: string,
): Promise<GenericResult> {
  const [counts, inScope, catalog] = await Promise.all([
    countByRegion(pool, filters, scope, granularity, version),
    regionsInScope(pool, granularity, scope, version),
    regionCatalog(pool, granularity, version),
  ])
  const width = PAYERS + 1
  const positionOf = regionPositions(counts.names)
  /** where a region's counts start in counts.counts, -1 when it has none */
  const countsAt = (region: Region) => {
    const p = positionOf.get(region.id)
    return p === undefined ? -1 : p * width
  }
  // Every ZIP area of the country is many thousands of points: outside a ZIP search only those with patients.
  const regions =
    granularity === 'ZIP_CODE_50KM' && scope.type !== 'ZIP_CODE_50KM'
      ? inScope.filter((region) => {
          const k = countsAt(region)
          return k >= 0 && counts.counts[k]! > 0
        })
      : inScope
  const n = regions.length
  const patients = new Array<number>(n).fill(0)
  const payers = new Uint32Array(n * PAYERS)
  const prevalence = new Float64Array(n).fill(NaN)
  for (let i = 0; i < n; i++) {
    const region = regions[i]!
    const at = countsAt(region)
    if (at >= 0) {
      patients[i] = counts.counts[at]!
      for (let k = 0; k < PAYERS; k++) payers[i * PAYERS + k] = counts.counts[at + 1 + k]!
    }
    if (region.population && region.population > 0) prevalence[i] = (patients[i]! / region.population) * 100_000
  }
  // Gi* over prevalence where the census gives most regions a population (the regions without one, such as
  // territories, get no score), else over patient counts (docs/decisions/0032). Which regions take part and
  // their neighbourhoods depend only on the regions: kept per catalog and scope (docs/decisions/0061).
  const { useRates, members, hoods } = await hotspotLayout(pool, granularity, scope, catalog, regions, regions === inScope, version)
  const memberHotspots = giStar(
    members.map((i) => (useRates ? prevalence[i]! : patients[i]!)),
    hoods,
  )
  const hotspot = new Float64Array(n).fill(NaN)
  members.forEach((i, k) => (hotspot[i] = memberHotspots[k] ?? NaN))
  const legend = buildLegend(patients, 'Patients')
  const { classOf, ...legendBody } = legend
  return new ColumnResult({
    granularity,
    scope,
    filters,
    hotspotVariable: useRates ? 'prevalence' : 'patients',
    catalog,
    total: patients.reduce((a, b) => a + b, 0),
    legend: legendBody,
    list: regions,
    patients,
    payers,
    prevalence,
    hotspot,
    fills: patients.map((count) => legendBody.items[classOf(count)]!.color),
  })
}

interface HotspotLayout {
  useRates: boolean
  /** the regions Gi* runs over (positions in the result's regions) */
  members: number[]
  hoods: Neighbourhoods
}
const hotspotLayouts = new WeakMap<ReadonlyMap<string, Region>, Map<string, HotspotLayout>>()
const HOTSPOT_LAYOUT_LIMIT = 50

/**
 * Which regions Gi* runs over (those with a census population when most have one, else all) and each one's
 * neighbourhood. Kept per region catalog (data version) and scope when the regions are the scope's (`fixed`),
 * so a recounted result (a tile with `_bypass_cache`) does not rebuild them.
 */
async function hotspotLayout(
  pool: pg.Pool,
  granularity: TileGranularity,
  scope: AtlasScope,
  catalog: ReadonlyMap<string, Region>,
  regions: readonly Region[],
  fixed: boolean,
  version: string,
): Promise<HotspotLayout> {
  let layouts = hotspotLayouts.get(catalog)
  const key = JSON.stringify([granularity, scope.type, scope.value])
  const hit = fixed ? layouts?.get(key) : undefined
  if (hit) return hit
  const withPopulation = regions.map((_, i) => i).filter((i) => regions[i]!.population !== null && regions[i]!.population! > 0)
  const useRates = regions.length > 0 && withPopulation.length * 2 >= regions.length
  const members = useRates ? withPopulation : regions.map((_, i) => i)
  const neighbourMap = await neighboursOf(
    pool,
    granularity,
    members.map((i) => regions[i]!),
    version,
  )
  const position = new Map(members.map((i, k) => [regions[i]!.id, k]))
  const neighbours = members.map((i) =>
    (neighbourMap.get(regions[i]!.id) ?? []).map((id) => position.get(id)).filter((k): k is number => k !== undefined),
  )
  const layout = { useRates, members, hoods: neighbourhoods(neighbours) }
  if (fixed) {
    if (!layouts) hotspotLayouts.set(catalog, (layouts = new Map()))
    layouts.set(key, layout)
    while (layouts.size > HOTSPOT_LAYOUT_LIMIT) layouts.delete(layouts.keys().next().value as string)
  }
  return layout
}

export const round = (value: number, digits: number) => {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}

export const share = (part: number, total: number) => (total > 0 ? round(part / total, 4) : 0)

export function metric(
  code: string,
  name: string,
  description: string,
  unit: AtlasMetric['unit'],
  v: number | string | null,
  kind: AtlasMetric['value']['value_kind'],
): AtlasMetric {
  return { code, name, description, unit, value: { v, value_kind: kind } }
}

export function payerMetrics(payers: PayerCounts, total: number): AtlasMetric[] {
  return [
    metric(
      'commercial_percent',
      'Commercial',
      'Share of patients with commercial insurance',
      'PERCENT',
      share(payers.commercial, total),
      'FLOAT',
    ),
    metric('medicare_percent', 'Medicare', 'Share of patients on Medicare', 'PERCENT', share(payers.medicare, total), 'FLOAT'),
    metric('medicaid_percent', 'Medicaid', 'Share of patients on Medicaid', 'PERCENT', share(payers.medicaid, total), 'FLOAT'),
    metric('other_percent', 'Other', 'Share of patients with another or no payer', 'PERCENT', share(payers.other, total), 'FLOAT'),
  ]
}

const ENTITY_OF: Record<TileGranularity, 'STATE' | 'COUNTY' | 'ZIP_CODE'> = { STATE: 'STATE', COUNTY: 'COUNTY', ZIP_CODE_50KM: 'ZIP_CODE' }

type GenericFeature = AtlasGenericResponse['geojson']['features'][number]
export interface ResponseOptions {
  tier: PlanTier
  census: boolean
  points: AtlasGenericResponse['geojson']['features']
}

/** The spec 2 §3 properties of each region's feature; the tier and the census flag applied. */
export function featureProperties(
  result: GenericResult,
  options: Omit<ResponseOptions, 'points'>,
  regions: readonly RegionResult[] = result.regions,
): GenericFeature['properties'][] {
  return regions.map((r) => regionProperties(result, r, options))
}

/**
 * What a vector tile's region feature carries: the feature properties of the GeoJSON answer that a map styles and
 * shows (id, label, value, fill, entity type, Gi* and its score, census figures), by the same rules, without
 * building the metrics and metadata the tile leaves out.
 */
export function tileRegionProperties(result: GenericResult, r: RegionResult, options: Omit<ResponseOptions, 'points'>) {
  const scoreAllowed = tierAllows(options.tier, 'score')
  return {
    id: r.region.id,
    label: r.region.label,
    value: r.patients,
    fill: r.fill,
    entity_type: ENTITY_OF[result.granularity],
    hotspot_score: scoreAllowed ? r.hotspot : null,
    score: scoreAllowed ? r.score : null,
    population: censusPopulation(r, options),
    prevalence_per_100k: censusPrevalence(r, options),
  }
}

const censusPopulation = (r: RegionResult, options: Omit<ResponseOptions, 'points'>) => (options.census ? r.region.population : null)
const censusPrevalence = (r: RegionResult, options: Omit<ResponseOptions, 'points'>) =>
  options.census && r.prevalence !== null ? round(r.prevalence, 2) : null

function regionProperties(result: GenericResult, r: RegionResult, options: Omit<ResponseOptions, 'points'>): GenericFeature['properties'] {
  const scoreAllowed = tierAllows(options.tier, 'score')
  const population = censusPopulation(r, options)
  const prevalence = censusPrevalence(r, options)
  const metrics = [
    metric('patient_count', 'Patients', 'Distinct patients with any of the conditions', 'PATIENT_COUNT', r.patients, 'INT'),
    ...payerMetrics(r.payers, r.patients),
  ]
  if (options.census) {
    metrics.push(metric('population', 'Population', 'Census resident population', 'STAT', population, 'INT'))
    metrics.push(metric('prevalence_per_100k', 'Prevalence per 100,000', 'Patients per 100,000 residents', 'RATIO', prevalence, 'FLOAT'))
  }
  if (scoreAllowed)
    metrics.push(metric('hotspot_score', 'Hotspot (Gi*)', 'Getis-Ord Gi* z-score over neighbouring regions', 'STAT', r.hotspot, 'FLOAT'))
  return {
    id: r.region.id,
    label: r.region.label,
    value: r.patients,
    code: r.region.id,
    territory_name: r.region.label,
    primary_metric_value: r.patients,
    primary_metric: 'patient_count',
    entity_type: ENTITY_OF[result.granularity],
    has_marker: false,
    fill: r.fill,
    'fill-opacity': 0.75,
    stroke: '#5C5F66',
    score: scoreAllowed ? r.score : null,
    hotspot_score: scoreAllowed ? r.hotspot : null,
    population,
    prevalence_per_100k: prevalence,
    metrics,
    additional_metadata: [
      { code: 'state', label: 'State', value: r.region.state },
      { code: 'latitude', label: 'Latitude', value: round(r.region.latitude, 5) },
      { code: 'longitude', label: 'Longitude', value: round(r.region.longitude, 5) },
    ],
    latitude: round(r.region.latitude, 5),
    longitude: round(r.region.longitude, 5),
    state: r.region.state,
  }
}

/** JSON of a number as JSON.stringify writes it (null for NaN and infinities). */
const num = (v: number | null) => (v === null || !Number.isFinite(v) ? 'null' : String(v))

/** The texts of the counts below 10,000 (most regions' counts), made once: a body writes thousands per request. */
const COUNT_TEXTS: readonly string[] = Array.from({ length: 10_000 }, (_, k) => String(k))
const countText = (v: number) => (Number.isInteger(v) && v >= 0 && v < COUNT_TEXTS.length ? COUNT_TEXTS[v]! : num(v))
/** The texts of every hotspot score (scoreOfHotspot: tenths from 0 to 100), made the same way. */
const SCORE_TEXTS: readonly string[] = Array.from({ length: 1001 }, (_, k) => String(k / 10))
const scoreText = (v: number | null) => {
  if (v === null) return 'null'
  const k = Math.round(v * 10)
  return k >= 0 && k <= 1000 && k / 10 === v ? SCORE_TEXTS[k]! : num(v)
}
const fillTexts = new Map<string, string>()
/** A legend colour as JSON (the legend has a handful). */
const fillText = (fill: string) => {
  let text = fillTexts.get(fill)
  if (text === undefined) {
    text = JSON.stringify(fill)
    if (fillTexts.size < 64) fillTexts.set(fill, text)
  }
  return text
}

/** Constant text of a properties template (made once per template). */
interface ConstantPiece {
  readonly text: string
}
const constantPiece = (text: string): ConstantPiece => ({ text })

/** Where the JSON of a response goes: constant text of the template, or per-request values. */
interface JsonSink {
  constant(piece: ConstantPiece): void
  value(text: string): void
}

/** Builds the text (the identity response). */
class TextSink implements JsonSink {
  text = ''
  constant(piece: ConstantPiece) {
    this.text += piece.text
  }
  value(text: string) {
    this.text += text
  }
}

/** What the bodies write of a region that never changes within its catalog, kept on the region itself. */
interface RegionCache {
  /** its id, label, state and rounded coordinates as JSON text */
  texts: { id: string; label: string; state: string; latitude: string; longitude: string }
  /** the feature's UTF-8 text up to its properties (identity body) */
  prefix?: Buffer
}
// a symbol key: JSON does not carry it
const CACHED = Symbol('atlas region cache')
type CachedRegion = Region & { [CACHED]?: RegionCache }

function cacheOf(region: Region): RegionCache {
  const cached = (region as CachedRegion)[CACHED]
  if (cached) return cached
  const made: RegionCache = {
    texts: {
      id: JSON.stringify(region.id),
      label: JSON.stringify(region.label),
      state: JSON.stringify(region.state),
      latitude: num(round(region.latitude, 5)),
      longitude: num(round(region.longitude, 5)),
    },
  }
  ;(region as CachedRegion)[CACHED] = made
  return made
}

const textsOf = (region: Region) => cacheOf(region).texts

/** The head of a metric's JSON up to its value (code, name, description, unit), as JSON.stringify writes it. */
const metricHead = (code: string, name: string, description: string, unit: AtlasMetric['unit']) =>
  `${JSON.stringify({ code, name, description, unit }).slice(0, -1)},"value":{"v":`
const kindTail = (kind: 'INT' | 'FLOAT') => `,"value_kind":"${kind}"}}`
const PAYER_HEADS = [
  metricHead('commercial_percent', 'Commercial', 'Share of patients with commercial insurance', 'PERCENT'),
  metricHead('medicare_percent', 'Medicare', 'Share of patients on Medicare', 'PERCENT'),
  metricHead('medicaid_percent', 'Medicaid', 'Share of patients on Medicaid', 'PERCENT'),
  metricHead('other_percent', 'Other', 'Share of patients with another or no payer', 'PERCENT'),
]

/* The text around the regions' features: the collection's head, a feature's lead up to its id, the geometry's and
 * the properties' keys. */
const COLLECTION_HEAD = '{"geojson":{"type":"FeatureCollection","features":['
const FEATURE_LEAD = '{"type":"Feature","id":'
const FEATURE_GEOMETRY = ',"geometry":'
const FEATURE_PROPERTIES = ',"properties":'

/**
 * The constant text between the values of a region's properties, for one entity type, tier (score or not)
 * and census flag: the pieces of regionProperties' JSON (metric heads and tails merged with what surrounds
 * them), made once. `lead` starts the properties (`{"id":`).
 */
interface PropertiesTemplate {
  scoreAllowed: boolean
  lead: ConstantPiece
  pieces: ConstantPiece[]
}
const templates = new Map<string, PropertiesTemplate>()
/** The template of a body's regions (one look-up per body, not per region). */
const bodyTemplate = (granularity: TileGranularity, options: Omit<ResponseOptions, 'points'>) =>
  templateOf(ENTITY_OF[granularity], tierAllows(options.tier, 'score'), options.census)

function templateOf(entity: string, scoreAllowed: boolean, census: boolean): PropertiesTemplate {
  const key = `${entity}|${scoreAllowed}|${census}`
  let template = templates.get(key)
  if (template) return template
  const texts = [
    ',"label":',
    ',"value":',
    ',"code":',
    ',"territory_name":',
    ',"primary_metric_value":',
    `,"primary_metric":"patient_count","entity_type":"${entity}","has_marker":false,"fill":`,
    ',"fill-opacity":0.75,"stroke":"#5C5F66","score":',
    ',"hotspot_score":',
    ',"population":',
    ',"prevalence_per_100k":',
    `,"metrics":[${metricHead('patient_count', 'Patients', 'Distinct patients with any of the conditions', 'PATIENT_COUNT')}`,
  ]
  let tail = kindTail('INT')
  for (const head of PAYER_HEADS) {
    texts.push(`${tail},${head}`)
    tail = kindTail('FLOAT')
  }
  if (census) {
    texts.push(`${tail},${metricHead('population', 'Population', 'Census resident population', 'STAT')}`)
    texts.push(
      `${kindTail('INT')},${metricHead('prevalence_per_100k', 'Prevalence per 100,000', 'Patients per 100,000 residents', 'RATIO')}`,
    )
    tail = kindTail('FLOAT')
  }
  if (scoreAllowed) {
    texts.push(`${tail},${metricHead('hotspot_score', 'Hotspot (Gi*)', 'Getis-Ord Gi* z-score over neighbouring regions', 'STAT')}`)
    tail = kindTail('FLOAT')
  }
  texts.push(
    `${tail}],"additional_metadata":[{"code":"state","label":"State","value":`,
    '},{"code":"latitude","label":"Latitude","value":',
    '},{"code":"longitude","label":"Longitude","value":',
    '}],"latitude":',
    ',"longitude":',
    ',"state":',
    '}',
  )
  template = {
    scoreAllowed,
    lead: constantPiece('{"id":'),
    pieces: texts.map(constantPiece),
  }
  templates.set(key, template)
  return template
}

/** `String(k / 10000)` for k = 0..10000: every value share() can give, as text (tested against String) */
export const SHARE_TEXTS: readonly string[] = Array.from({ length: 10_001 }, (_, k) => String(k / 10_000))

/** share() as JSON text: share() is round(part / total, 4) = k / 10000 for the k below, so its text is looked up. */
export const shareText = (part: number, total: number): string => {
  if (!(total > 0)) return '0'
  const k = Math.round((part / total) * 10_000)
  return k >= 0 && k <= 10_000 ? SHARE_TEXTS[k]! : num(share(part, total))
}

/**
 * JSON.stringify(regionProperties(…)) written from the template's constant pieces and the values: the
 * region's own text is encoded once, only the counts, fill, scores and metric values are written per request
 * (the test compares it with the object response).
 */
function writeRegionProperties(
  sink: JsonSink,
  template: PropertiesTemplate,
  columns: RegionColumns,
  i: number,
  options: Omit<ResponseOptions, 'points'>,
) {
  const region = columns.list[i]!
  const texts = textsOf(region)
  const scoreAllowed = template.scoreAllowed
  const pieces = template.pieces
  const rawPrevalence = columns.prevalence[i]!
  const z = orNull(columns.hotspot[i]!)
  const population = options.census ? num(region.population) : 'null'
  const prevalence = options.census && !Number.isNaN(rawPrevalence) ? num(round(rawPrevalence, 2)) : 'null'
  const hotspot = scoreAllowed && z !== null ? num(round(z, 4)) : 'null'
  const patients = columns.patients[i]!
  const value = countText(patients)
  const k4 = i * PAYERS
  const { payers } = columns
  sink.constant(template.lead)
  sink.value(texts.id)
  sink.constant(pieces[0]!)
  sink.value(texts.label)
  sink.constant(pieces[1]!)
  sink.value(value)
  sink.constant(pieces[2]!)
  sink.value(texts.id)
  sink.constant(pieces[3]!)
  sink.value(texts.label)
  sink.constant(pieces[4]!)
  sink.value(value)
  sink.constant(pieces[5]!)
  sink.value(fillText(columns.fills[i]!))
  sink.constant(pieces[6]!)
  sink.value(scoreAllowed ? scoreText(scoreOfHotspot(z)) : 'null')
  sink.constant(pieces[7]!)
  sink.value(hotspot)
  sink.constant(pieces[8]!)
  sink.value(population)
  sink.constant(pieces[9]!)
  sink.value(prevalence)
  sink.constant(pieces[10]!)
  sink.value(value)
  sink.constant(pieces[11]!)
  sink.value(shareText(payers[k4]!, patients))
  sink.constant(pieces[12]!)
  sink.value(shareText(payers[k4 + 1]!, patients))
  sink.constant(pieces[13]!)
  sink.value(shareText(payers[k4 + 2]!, patients))
  sink.constant(pieces[14]!)
  sink.value(shareText(payers[k4 + 3]!, patients))
  let k = 15
  if (options.census) {
    sink.constant(pieces[k++]!)
    sink.value(population)
    sink.constant(pieces[k++]!)
    sink.value(prevalence)
  }
  if (scoreAllowed) {
    sink.constant(pieces[k++]!)
    sink.value(hotspot)
  }
  sink.constant(pieces[k++]!)
  sink.value(texts.state)
  sink.constant(pieces[k++]!)
  sink.value(texts.latitude)
  sink.constant(pieces[k++]!)
  sink.value(texts.longitude)
  sink.constant(pieces[k++]!)
  sink.value(texts.latitude)
  sink.constant(pieces[k++]!)
  sink.value(texts.longitude)
  sink.constant(pieces[k++]!)
  sink.value(texts.state)
  sink.constant(pieces[k]!)
}

function regionPropertiesJson(
  template: PropertiesTemplate,
  columns: RegionColumns,
  i: number,
  options: Omit<ResponseOptions, 'points'>,
): string {
  const sink = new TextSink()
  writeRegionProperties(sink, template, columns, i, options)
  return sink.text
}

function responseTail(result: GenericResult, options: ResponseOptions) {
  return {
    choropleth_legend: result.legend,
    summary: {
      total_patients: result.total,
      region_count: result.list.length,
      codes: result.filters.codes,
      tile_granularity: result.granularity,
      search_within_region: result.scope.value,
      search_within_region_type: result.scope.type,
      region_name: result.scope.name,
      plan_tier: options.tier,
    },
  }
}

/** The documented response: features with the spec 2 §3 properties; the tier and the census flag applied. */
export function toGenericResponse(result: GenericResult, options: ResponseOptions): AtlasGenericResponse {
  const features: GenericFeature[] = featureProperties(result, options).map((properties, i) => ({
    type: 'Feature' as const,
    id: properties.id,
    geometry: JSON.parse(result.list[i]!.geometry) as GenericFeature['geometry'],
    properties,
  }))
  return { geojson: { type: 'FeatureCollection', features: [...features, ...options.points] }, ...responseTail(result, options) }
}

/** The text after the regions' features: the facility points, the end of the collection and the response's tail. */
export function collectionEnd(result: GenericResult, options: ResponseOptions): string {
  return (
    options.points.map((point, i) => `${i > 0 || result.list.length > 0 ? ',' : ''}${JSON.stringify(point)}`).join('') +
    `]},${JSON.stringify(responseTail(result, options)).slice(1)}`
  )
}

/**
 * The same response as UTF-8 JSON, written directly: each region's feature up to its properties (with the
 * GeoJSON text PostGIS gave) is encoded once per region catalog and copied, so a request serialises only
 * the properties, never the polygons (docs/decisions/0043). The route sends the buffer as is.
 */
export function genericResponseJson(result: GenericResult, options: ResponseOptions): Buffer {
  // one buffer of the exact size: the regions' encoded prefixes copied, the rest written as text into it
  const head = COLLECTION_HEAD
  const n = result.list.length
  const prefixes: Buffer[] = new Array<Buffer>(n)
  const texts: string[] = new Array<string>(n)
  const template = bodyTemplate(result.granularity, options)
  let size = Buffer.byteLength(head)
  for (let i = 0; i < n; i++) {
    const region = result.list[i]!
    const cache = cacheOf(region)
    const prefix = (cache.prefix ??= Buffer.from(
      `${FEATURE_LEAD}${cache.texts.id}${FEATURE_GEOMETRY}${region.geometry}${FEATURE_PROPERTIES}`,
    ))
    prefixes[i] = prefix
    const text = `${regionPropertiesJson(template, result, i, options)}}`
    texts[i] = text
    size += (i > 0 ? 1 : 0) + prefix.length + Buffer.byteLength(text)
  }
  const tail = collectionEnd(result, options)
  size += Buffer.byteLength(tail)
  const out = Buffer.allocUnsafe(size)
  let at = out.write(head, 0)
  for (let i = 0; i < prefixes.length; i++) {
    if (i > 0) at += out.write(',', at)
    at += prefixes[i]!.copy(out, at)
    at += out.write(texts[i]!, at)
  }
  at += out.write(tail, at)
  if (at !== size) throw new Error('Atlas response: size mismatch')
  return out
}
