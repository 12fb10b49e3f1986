import {
  ATLAS_PAYER_TYPES,
  tierAllows,
  type AtlasInsight,
  type AtlasMetricGroup,
  type DrilldownType,
  type PlanTier,
} from '@citrus/contracts'
import type pg from 'pg'
import { atlasClaims, drillWithIndex, type DrillCount, type DrillQuery } from '../../engines/atlas/claim-index.js'
import { emptyMetrics, type AtlasFilters, type AtlasScope, type GroupMetrics } from '../../engines/atlas/rows.js'
import type { Row } from '../../db/kysely.js'
import { primaryOf } from '../../db/replicas.js'
import { sharedBeforeStart } from '../../lib/coalesce.js'
import { reportCacheLookups } from '../../lib/engine-stats.js'
import { metric, payerMetrics, round } from './generic.js'
import { dataVersion } from './regions.js'

export { emptyMetrics, type GroupMetrics }

export interface DrilldownPage {
  rows: DrilldownRow[]
  total: number
}
export interface DrilldownRow {
  id: string
  name: string
  metrics: GroupMetrics
  /** 0-100 (Enterprise): the Gi* percentile of a state, the patient-count percentile of a facility or provider */
  opportunity: number | null
  details: Record<string, string | number | null>
}

export interface DrilldownQuery {
  type: DrilldownType
  filters: AtlasFilters
  scope: AtlasScope
  facilityId: number | null
  healthSystemId: number | null
  state: string | null
  sort: { code: string; direction: 'ASC' | 'DESC' }
  page: number
  pageSize: number
  /** recount instead of taking the groups counted for the same query before (`_bypass_cache`) */
  bypass?: boolean
  /** STATE: only the groups of these states (a page whose order the patient counts decide) */
  states?: string[] | null
  /** the data version the request read (requestDataVersion); read here when absent */
  version?: string
}

const drillCache = new Map<string, DrillCount[]>()
const DRILL_CACHE_LIMIT = 100
/** look-ups of the cache (a `bypass` is none), for GET /metrics */
const drillStats = { hits: 0, misses: 0 }
reportCacheLookups('atlas_drilldown', () => drillStats)

/**
 * The groups of a drill-down, counted by drillWithIndex over the claim engine's rows (the index of the data version,
 * or while it builds an index of the drill-down's claims read from the database: docs/decisions/0080), kept per data
 * version and query (least recently used first out), so that paging through one drill-down counts it once; `bypass`
 * recounts. Callers must not mutate the returned array.
 */
export async function drillCounts(pool: pg.Pool, version: string, q: DrillQuery, bypass = false): Promise<readonly DrillCount[]> {
  const key = JSON.stringify([version, q])
  const hit = bypass ? undefined : drillCache.get(key)
  if (hit) {
    drillStats.hits++
    drillCache.delete(key)
    drillCache.set(key, hit)
    return hit
  }
  if (!bypass) drillStats.misses++
  // identical drill-downs that arrive before the count starts share it (the pages of one drill-down asked at
  // once, docs/decisions/0066)
  return shareDrill(key, async () => {
    const groups = await drillWithIndex(pool, await atlasClaims.rows(pool, version, q), q)
    drillCache.set(key, groups)
    while (drillCache.size > DRILL_CACHE_LIMIT) drillCache.delete(drillCache.keys().next().value as string)
    return groups
  })
}
const shareDrill = sharedBeforeStart<DrillCount[]>()

function drillQuery(q: DrilldownQuery): DrillQuery {
  return {
    group: q.type,
    filters: q.filters,
    scope: q.scope,
    facilityId: q.facilityId,
    healthSystemId: q.healthSystemId,
    state: q.state,
    ...(q.type === 'STATE' && q.states ? { states: q.states } : {}),
  }
}

/** the request's data version, else read now, on the primary (a reader may be a replica: docs/decisions/0078) */
const versionOf = async (pool: pg.Pool, q: DrilldownQuery) => q.version ?? (await dataVersion(primaryOf(pool)))

/** COUNTRY: one row, the whole search region. */
export async function countryRow(pool: pg.Pool, q: DrilldownQuery): Promise<GroupMetrics> {
  const counts = await drillCounts(pool, await versionOf(pool, q), { ...drillQuery(q), group: 'COUNTRY', state: null }, q.bypass)
  return counts[0]?.metrics ?? emptyMetrics()
}

/** STATE: one row per state where the patients live. */
export async function stateRows(pool: pg.Pool, q: DrilldownQuery): Promise<Map<string, GroupMetrics>> {
  const counts = await drillCounts(pool, await versionOf(pool, q), { ...drillQuery(q), group: 'STATE' }, q.bypass)
  return new Map(counts.map((c) => [c.key, c.metrics]))
}

/**
 * Whether a STATE drill-down may choose its page from the generic STATE result's patients and count only that
 * page's states (docs/decisions/0057): its patients are the patient engine's (every patient with a matching
 * diagnosis), as the generic result's are, whichever rows the engines give. Never when the order needs
 * claim-level counts (providers, claims) or a facility or health-system filter changes who counts.
 */
export function statePageFirst(q: DrilldownQuery): boolean {
  if (q.type !== 'STATE') return false
  if (q.sort.code === 'provider_count' || q.sort.code === 'claim_count') return false
  return q.facilityId === null && q.healthSystemId === null
}

const SORT_COLUMNS: Record<string, 'patients' | 'providers' | 'claims' | 'name' | 'state'> = {
  patient_count: 'patients',
  num_patients: 'patients',
  provider_count: 'providers',
  claim_count: 'claims',
  opportunity_score: 'patients',
  name: 'name',
  state: 'state',
}

/** The details of a page's entities (one row each), as the drill-down cards show them: a facility's or a provider's. */
type EntityDetailsRow = { id: string } & Pick<
  Row<'facilities'>,
  'name' | 'npi' | 'city' | 'state' | 'zip_code' | 'latitude' | 'longitude'
> & {
    address: Row<'facilities'>['address_line_1'] | Row<'providers'>['address']
    kind: Row<'facilities'>['hco_compile_level_1'] | Row<'providers'>['provider_kind']
    parent_name: Row<'health_systems'>['name'] | Row<'facilities'>['name'] | null
    healthsystem_id: Row<'health_systems'>['healthsystem_id'] | null
    title: Row<'providers'>['title']
    specialization: Row<'providers'>['cms_specialization'] | null
    facility_name: Row<'facilities'>['name'] | null
  }

const FACILITY_DETAILS_SQL = `SELECT e.id::text AS id, e.name, e.npi, e.city, e.state, e.zip_code, e.latitude, e.longitude, e.address_line_1 AS address,
    e.hco_compile_level_1 AS kind, h.name AS parent_name, h.healthsystem_id, NULL::text AS title, NULL::text AS specialization,
    NULL::text AS facility_name
  FROM facilities e LEFT JOIN health_systems h ON h.id = e.health_system_id WHERE e.id = ANY($1::int[])`
const PROVIDER_DETAILS_SQL = `SELECT e.npi::text AS id, e.full_name AS name, e.npi, e.city, e.state, e.zip_code, e.latitude, e.longitude, e.address,
    e.provider_kind AS kind, ef.name AS parent_name, NULL::text AS healthsystem_id, e.title, e.cms_specialization AS specialization,
    ef.name AS facility_name
  FROM providers e LEFT JOIN facilities ef ON ef.id = e.facility_id WHERE e.npi = ANY($1::text[])`

/**
 * The keys of a drill-down's entities ordered by name or state in the database's collation (then by the key as
 * text), as the cards list them.
 */
async function keysInOrder(
  pool: pg.Pool,
  type: 'FACILITY' | 'PROVIDER',
  keys: readonly string[],
  column: 'name' | 'state',
  direction: 'ASC' | 'DESC',
): Promise<string[]> {
  const dir = direction === 'ASC' ? 'ASC' : 'DESC'
  const { rows } = await pool.query<{ id: string }>(
    type === 'FACILITY'
      ? `SELECT e.id::text AS id FROM facilities e WHERE e.id = ANY($1::int[]) ORDER BY e.${column} ${dir}, e.id::text ASC`
      : `SELECT e.npi::text AS id FROM providers e WHERE e.npi = ANY($1::text[]) ORDER BY e.${column === 'name' ? 'full_name' : 'state'} ${dir}, e.npi::text ASC`,
    [type === 'FACILITY' ? keys.map(Number) : keys],
  )
  return rows.map((row) => row.id)
}

/**
 * FACILITY (facilities located in the region) or PROVIDER (rendering clinicians practising in it): the groups
 * counted by the claim engine (drillCounts), ranked by the patient count (percent_rank: ties share the lowest rank),
 * sorted by a count (then the key as text) or by name or state in the database, then only the page's entities read.
 */
export async function entityPage(pool: pg.Pool, q: DrilldownQuery): Promise<DrilldownPage> {
  const type = q.type === 'FACILITY' ? 'FACILITY' : 'PROVIDER'
  const column = SORT_COLUMNS[q.sort.code] ?? 'patients'
  const groups = [...(await drillCounts(pool, await versionOf(pool, q), drillQuery(q), q.bypass))]
  const n = groups.length
  // percent_rank() OVER (ORDER BY patients): (rank - 1) / (n - 1), ties share the lowest rank
  const ascending = groups.map((g) => g.metrics.patients).sort((a, b) => a - b)
  const below = (value: number) => {
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (ascending[mid]! < value) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  const direction = q.sort.direction === 'ASC' ? 1 : -1
  let ordered: DrillCount[]
  if (column === 'name' || column === 'state') {
    const byKey = new Map(groups.map((g) => [g.key, g]))
    ordered = (await keysInOrder(pool, type, [...byKey.keys()], column, q.sort.direction)).map((key) => byKey.get(key)!)
  } else {
    ordered = groups.sort((a, b) => (a.metrics[column] - b.metrics[column]) * direction || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  }
  const page = ordered.slice(q.page * q.pageSize, (q.page + 1) * q.pageSize)
  const { rows } = await pool.query<EntityDetailsRow>(type === 'FACILITY' ? FACILITY_DETAILS_SQL : PROVIDER_DETAILS_SQL, [
    type === 'FACILITY' ? page.map((g) => Number(g.key)) : page.map((g) => g.key),
  ])
  const details = new Map(rows.map((row) => [String(row.id), row]))
  return {
    total: n,
    rows: page.map((g) =>
      toRow(details.get(g.key) ?? { id: g.key, name: g.key }, g.metrics, n > 1 ? (below(g.metrics.patients) / (n - 1)) * 100 : 0),
    ),
  }
}

export function toRow(
  row: Partial<EntityDetailsRow> & { id: string; name: string },
  metrics: GroupMetrics,
  opportunity: number,
): DrilldownRow {
  return {
    id: String(row.id),
    name: String(row.name),
    metrics,
    opportunity: round(opportunity, 1),
    details: {
      npi: (row.npi as string | null) ?? null,
      city: (row.city as string | null) ?? null,
      state: (row.state as string | null) ?? null,
      zip_code: (row.zip_code as string | null) ?? null,
      latitude: row.latitude === null ? null : Number(row.latitude),
      longitude: row.longitude === null ? null : Number(row.longitude),
      address: (row.address as string | null) ?? null,
      kind: (row.kind as string | null) ?? null,
      parent_name: (row.parent_name as string | null) ?? null,
      healthsystem_id: (row.healthsystem_id as string | null) ?? null,
      title: (row.title as string | null) ?? null,
      specialization: (row.specialization as string | null) ?? null,
      facility_name: (row.facility_name as string | null) ?? null,
    },
  }
}

/** The metric groups of an insight card: PRIMARY counts, INSURANCE payer mix, PATIENT_INSIGHTS score. */
export function metricGroups(
  type: DrilldownType,
  m: GroupMetrics,
  options: { payerMix: boolean; opportunity: number | null; tier: PlanTier; prevalence?: number | null },
): AtlasMetricGroup[] {
  const primary = [metric('patient_count', 'Patients', 'Distinct patients with any of the conditions', 'PATIENT_COUNT', m.patients, 'INT')]
  if (type !== 'PROVIDER')
    primary.push(
      metric('provider_count', 'Healthcare Providers', 'Distinct rendering providers of their claims', 'UNITS', m.providers, 'INT'),
    )
  if (type === 'COUNTRY' || type === 'STATE') {
    primary.push(metric('facility_count', 'Facilities', 'Distinct facilities of their claims', 'UNITS', m.facilities, 'INT'))
    primary.push(
      metric('health_system_count', 'Health Systems', 'Distinct health systems of those facilities', 'UNITS', m.health_systems, 'INT'),
    )
  }
  primary.push(metric('claim_count', 'Total Claims', 'Claims carrying any of the conditions', 'PATIENT_CASES', m.claims, 'INT'))
  if (type === 'COUNTRY') primary.push(metric('state_count', 'States Analyzed', 'States where the patients live', 'UNITS', m.states, 'INT'))
  const groups: AtlasMetricGroup[] = [{ type: 'PRIMARY', metrics: primary }]
  if (options.prevalence !== undefined && options.prevalence !== null) {
    groups.push({
      type: 'INCIDENCE',
      metrics: [
        metric(
          'prevalence_per_100k',
          'Prevalence per 100,000',
          'Patients per 100,000 residents (Census)',
          'RATIO',
          round(options.prevalence, 2),
          'FLOAT',
        ),
      ],
    })
  }
  if (options.payerMix) {
    const counts = ATLAS_PAYER_TYPES.map((payer) =>
      metric(
        `${payer}_patients`,
        `${payer[0]!.toUpperCase()}${payer.slice(1)} patients`,
        `Patients whose payer is ${payer}`,
        'PATIENT_COUNT',
        m[payer],
        'INT',
      ),
    )
    groups.push({ type: 'INSURANCE', metrics: [...payerMetrics(m, m.patients), ...counts] })
  }
  if (tierAllows(options.tier, 'score') && options.opportunity !== null) {
    groups.push({
      type: 'PATIENT_INSIGHTS',
      metrics: [
        metric(
          'opportunity_score',
          'Opportunity Score',
          'Hotspot percentile (states) or patient-volume percentile (facilities, providers), 0-100',
          'STAT',
          options.opportunity,
          'FLOAT',
        ),
      ],
    })
  }
  return groups
}

export function insight(
  entityType: AtlasInsight['entity_type'],
  base: { id: string; name: string; parent: string | null; level: string | null; details?: Record<string, string | number | null> },
  groups: AtlasMetricGroup[],
  summary: string,
): AtlasInsight {
  const d = base.details ?? {}
  const str = (key: string) => (typeof d[key] === 'string' ? (d[key] as string) : null)
  const num = (key: string) => (typeof d[key] === 'number' ? (d[key] as number) : null)
  const isFacility = entityType === 'FACILITY'
  const badges: AtlasInsight['badges'] = []
  const score = groups.find((g) => g.type === 'PATIENT_INSIGHTS')?.metrics[0]?.value.v
  if (typeof score === 'number' && score >= 90) {
    badges.push({ code: 'TOP_DECILE', type: 'OPPORTUNITY', label: 'Top 10%', description: 'Among the top tenth by the opportunity score' })
  }
  const metadata: AtlasInsight['additional_metadata'] = Object.entries(d)
    .filter(([, value]) => value !== null)
    .map(([code, value]) => ({ code, label: code.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()), value }))
  return {
    entity_type: entityType,
    account_type: isFacility ? 'FACILITY' : null,
    citrus_id: base.id,
    display_name: base.name,
    parent_citrus_id: base.parent,
    territoryLevel: base.level,
    badges,
    additional_metadata: metadata,
    summary_md: summary,
    metrics: groups,
    entity: {
      name: base.name,
      full_name: entityType === 'PROVIDER' ? base.name : null,
      parent_name: str('parent_name'),
      npi: str('npi'),
      citrus_id: base.id,
      healthsystem_id: str('healthsystem_id'),
      id: base.id,
      zip_code: str('zip_code'),
      latitude: num('latitude'),
      longitude: num('longitude'),
      city: str('city'),
      state: str('state'),
      title: str('title'),
      cms_specialization: str('specialization'),
      facility_name: str('facility_name'),
      address: str('address'),
    },
    zip_code: str('zip_code'),
    name: base.name,
    latitude: num('latitude'),
    longitude: num('longitude'),
  }
}
