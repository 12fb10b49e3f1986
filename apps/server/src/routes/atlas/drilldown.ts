import {
  ATLAS_PAYER_TYPES,
  tierAllows,
  type AtlasInsight,
  type AtlasMetricGroup,
  type DrilldownType,
  type PlanTier,
} from '@citrus/contracts'
import type pg from 'pg'
import { metric, payerMetrics, round, type PayerCounts } from './generic.js'
import { currentClaimIndex, drillWithIndex, type ClaimIndex, type DrillCount, type DrillQuery } from './claim-index.js'
import { dataVersion } from './regions.js'
import { codeConditionSql, patientConditions, scopeZipsSql, SqlParams, type AtlasFilters, type AtlasScope } from './query.js'
import { sharedBeforeStart } from '../../lib/coalesce.js'

/** Claim-level metrics of a group: distinct patients, claims, rendering providers, facilities, systems. */
export interface GroupMetrics extends PayerCounts {
  patients: number
  claims: number
  providers: number
  facilities: number
  health_systems: number
  states: number
}

const METRICS_SQL = `count(DISTINCT c.patient_id)::int AS patients, count(DISTINCT c.id)::int AS claims,
  count(DISTINCT c.rendering_npi)::int AS providers, count(DISTINCT c.facility_id)::int AS facilities,
  count(DISTINCT f.health_system_id)::int AS health_systems, count(DISTINCT p.state)::int AS states,
  ${ATLAS_PAYER_TYPES.map((payer) => `count(DISTINCT c.patient_id) FILTER (WHERE p.payer_type = '${payer}')::int AS "${payer}"`).join(', ')}`

/**
 * The claims of the query: claims that carry a matching diagnosis (each code prefix one range of the
 * claim_diagnoses text_pattern_ops index), with their patient (gender, age, payer) and facility. The
 * scope applies to where the patients live (COUNTRY, STATE) unless `scopeOn` says facilities or providers.
 */
function claimsFrom(
  filters: AtlasFilters,
  scope: AtlasScope,
  params: SqlParams,
  scopeOn: 'patient' | 'facility' | 'provider',
): { from: string; where: string[] } {
  const where = patientConditions('p', filters, scopeOn === 'patient' ? scope : { ...scope, type: 'COUNTRY' }, params)
  if (scopeOn !== 'patient') {
    const alias = scopeOn === 'facility' ? 'f' : 'pr'
    if (scope.type === 'STATE') where.push(`${alias}.state = ${params.add(scope.state)}`)
    if (scope.type === 'ZIP_CODE_50KM') where.push(`${alias}.zip_code IN (${scopeZipsSql(scope, params)})`)
  }
  const codes = codeConditionSql('d.icd10_code', filters, params)
  const claims = codes
    ? `(SELECT DISTINCT d.claim_id FROM claim_diagnoses d WHERE ${codes}) m JOIN claims c ON c.id = m.claim_id`
    : 'claims c'
  const provider = scopeOn === 'provider' ? ' JOIN providers pr ON pr.npi = c.rendering_npi' : ''
  return { from: `${claims} JOIN patients p ON p.id = c.patient_id LEFT JOIN facilities f ON f.id = c.facility_id${provider}`, where }
}

const whereSql = (where: string[]) => (where.length > 0 ? `WHERE ${where.join(' AND ')}` : '')

function toMetrics(row: Record<string, unknown>): GroupMetrics {
  const n = (key: string) => Number(row[key] ?? 0)
  return {
    patients: n('patients'),
    claims: n('claims'),
    providers: n('providers'),
    facilities: n('facilities'),
    health_systems: n('health_systems'),
    states: n('states'),
    commercial: n('commercial'),
    medicare: n('medicare'),
    medicaid: n('medicaid'),
    other: n('other'),
  }
}

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

/** The drill-down index of the current data version when it is built (docs/decisions/0043), else null (SQL answers). */
async function readyIndex(pool: pg.Pool, version?: string): Promise<ClaimIndex | null> {
  return currentClaimIndex(pool, version ?? (await dataVersion(pool)))
}

const drillCache = new Map<string, DrillCount[]>()
const DRILL_CACHE_LIMIT = 100

/**
 * The groups of a drill-down from the index, kept per data version and query (least recently used first
 * out), so that paging through one drill-down counts it once; `bypass` recounts. Callers must not mutate
 * the returned array.
 */
export async function drillCounts(pool: pg.Pool, index: ClaimIndex, q: DrillQuery, bypass = false): Promise<readonly DrillCount[]> {
  const key = JSON.stringify([index.version, q])
  const hit = drillCache.get(key)
  if (hit && !bypass) {
    drillCache.delete(key)
    drillCache.set(key, hit)
    return hit
  }
  // identical drill-downs that arrive before the count starts share it (the pages of one drill-down asked at
  // once, docs/decisions/0066)
  return shareDrill(key, async () => {
    const groups = await drillWithIndex(pool, index, q)
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

/** COUNTRY: one row, the whole search region. */
export async function countryRow(pool: pg.Pool, q: DrilldownQuery): Promise<GroupMetrics> {
  const index = await readyIndex(pool, q.version)
  if (index)
    return (await drillCounts(pool, index, { ...drillQuery(q), group: 'COUNTRY', state: null }, q.bypass))[0]?.metrics ?? toMetrics({})
  return countryRowSql(pool, q)
}

/** COUNTRY in SQL over the claims. */
export async function countryRowSql(pool: pg.Pool, q: DrilldownQuery): Promise<GroupMetrics> {
  const params = new SqlParams()
  const { from, where } = claimsFrom(q.filters, q.scope, params, 'patient')
  const { rows } = await pool.query(`SELECT ${METRICS_SQL} FROM ${from} ${whereSql(where)}`, params.values)
  return toMetrics(rows[0] ?? {})
}

/** STATE: one row per state where the patients live. */
export async function stateRows(pool: pg.Pool, q: DrilldownQuery): Promise<Map<string, GroupMetrics>> {
  const index = await readyIndex(pool, q.version)
  if (index) {
    const counts = await drillCounts(pool, index, { ...drillQuery(q), group: 'STATE' }, q.bypass)
    return new Map(counts.map((c) => [c.key, c.metrics]))
  }
  return stateRowsSql(pool, q)
}

/**
 * Whether a STATE drill-down may choose its page from the generic STATE result's patients and count only that
 * page's states (docs/decisions/0057). Only exact when the claim index answers: its patients are the patient
 * index's (every patient with a matching diagnosis), as the generic result's are, whereas stateRowsSql without
 * codes counts every patient with any claim. Never when the order needs claim-level counts (providers, claims)
 * or a facility or health-system filter changes who counts. `index`: the ready claim index, or null.
 */
export function statePageFirst(q: DrilldownQuery, index: ClaimIndex | null): boolean {
  if (index === null || q.type !== 'STATE') return false
  if (q.sort.code === 'provider_count' || q.sort.code === 'claim_count') return false
  return q.facilityId === null && q.healthSystemId === null
}

/** The claim index of the current data version when it is built, else null (SQL answers meanwhile). */
export const readyClaimIndex = readyIndex

/** STATE in SQL over the claims. */
export async function stateRowsSql(pool: pg.Pool, q: DrilldownQuery): Promise<Map<string, GroupMetrics>> {
  const params = new SqlParams()
  const { from, where } = claimsFrom(q.filters, q.scope, params, 'patient')
  if (q.state) where.push(`p.state = ${params.add(q.state)}`)
  if (q.states) where.push(`p.state = ANY(${params.add(q.states)}::text[])`)
  const { rows } = await pool.query<{ id: string }>(
    `SELECT p.state AS id, ${METRICS_SQL} FROM ${from} ${whereSql(where)} GROUP BY p.state`,
    params.values,
  )
  return new Map(rows.map((row) => [row.id, toMetrics(row)]))
}

const SORT_COLUMNS: Record<string, string> = {
  patient_count: 'patients',
  num_patients: 'patients',
  provider_count: 'providers',
  claim_count: 'claims',
  opportunity_score: 'patients',
  name: 'name',
  state: 'state',
}

/** FACILITY (facilities located in the region) or PROVIDER (rendering clinicians practising in it), paged in SQL. */
export async function entityPage(pool: pg.Pool, q: DrilldownQuery): Promise<DrilldownPage> {
  const column = SORT_COLUMNS[q.sort.code] ?? 'patients'
  // sorts by a count come from the index; by name or state (the database's collation) from SQL
  if (column === 'patients' || column === 'providers' || column === 'claims') {
    const index = await readyIndex(pool, q.version)
    if (index) return entityPageWithIndex(pool, index, q, column)
  }
  return entityPageSql(pool, q)
}

/** FACILITY or PROVIDER in SQL over the claims. */
export async function entityPageSql(pool: pg.Pool, q: DrilldownQuery): Promise<DrilldownPage> {
  const params = new SqlParams()
  const facility = q.type === 'FACILITY'
  const { from, where } = claimsFrom(q.filters, q.scope, params, facility ? 'facility' : 'provider')
  if (facility) where.push('c.facility_id IS NOT NULL')
  if (q.facilityId !== null) where.push(`c.facility_id = ${params.add(q.facilityId)}`)
  if (q.healthSystemId !== null) where.push(`f.health_system_id = ${params.add(q.healthSystemId)}`)
  if (q.state) where.push(`${facility ? 'f' : 'pr'}.state = ${params.add(q.state)}`)
  const group = facility ? 'c.facility_id' : 'c.rendering_npi'
  const order = `${SORT_COLUMNS[q.sort.code] ?? 'patients'} ${q.sort.direction}, id ASC`
  const entity = facility
    ? `SELECT g.*, e.name, e.npi, e.city, e.state, e.zip_code, e.latitude, e.longitude, e.address_line_1 AS address,
              e.hco_compile_level_1 AS kind, h.name AS parent_name, h.healthsystem_id, NULL::text AS title, NULL::text AS specialization,
              NULL::text AS facility_name
       FROM g JOIN facilities e ON e.id = g.key LEFT JOIN health_systems h ON h.id = e.health_system_id`
    : `SELECT g.*, e.full_name AS name, e.npi, e.city, e.state, e.zip_code, e.latitude, e.longitude, e.address,
              e.provider_kind AS kind, ef.name AS parent_name, NULL::text AS healthsystem_id, e.title, e.cms_specialization AS specialization,
              ef.name AS facility_name
       FROM g JOIN providers e ON e.npi = g.key LEFT JOIN facilities ef ON ef.id = e.facility_id`
  const { rows } = await pool.query<Record<string, unknown>>(
    `WITH g AS (
       SELECT ${group} AS key, ${METRICS_SQL} FROM ${from} ${whereSql(where)} GROUP BY ${group}
     ), e AS (${entity})
     SELECT e.*, e.key::text AS id, (percent_rank() OVER (ORDER BY e.patients) * 100)::float8 AS opportunity, count(*) OVER ()::int AS total
     FROM e ORDER BY ${order} LIMIT ${params.add(q.pageSize)} OFFSET ${params.add(q.page * q.pageSize)}`,
    params.values,
  )
  let total = Number(rows[0]?.total ?? 0)
  if (rows.length === 0 && q.page > 0) {
    const count = await pool.query<{ n: number }>(
      `SELECT count(DISTINCT ${group})::int AS n FROM ${from} ${whereSql(where)}`,
      params.values.slice(0, -2),
    )
    total = count.rows[0]?.n ?? 0
  }
  return {
    total,
    rows: rows.map((row) => toRow(row, toMetrics(row), Number(row.opportunity))),
  }
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
 * FACILITY or PROVIDER page from the drill-down index: the groups counted in process, ranked and sorted as
 * the SQL of entityPage does (count, then the id as text; percent_rank of the patients), then only the
 * page's entities read from the database.
 */
export async function entityPageWithIndex(
  pool: pg.Pool,
  index: ClaimIndex,
  q: DrilldownQuery,
  column: 'patients' | 'providers' | 'claims',
): Promise<DrilldownPage> {
  const groups = [...(await drillCounts(pool, index, drillQuery(q), q.bypass))]
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
  groups.sort((a, b) => (a.metrics[column] - b.metrics[column]) * direction || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  const page = groups.slice(q.page * q.pageSize, (q.page + 1) * q.pageSize)
  const { rows } = await pool.query<Record<string, unknown>>(q.type === 'FACILITY' ? FACILITY_DETAILS_SQL : PROVIDER_DETAILS_SQL, [
    q.type === 'FACILITY' ? page.map((g) => Number(g.key)) : page.map((g) => g.key),
  ])
  const details = new Map(rows.map((row) => [String(row.id), row]))
  return {
    total: n,
    rows: page.map((g) =>
      toRow(details.get(g.key) ?? { id: g.key, name: g.key }, g.metrics, n > 1 ? (below(g.metrics.patients) / (n - 1)) * 100 : 0),
    ),
  }
}

function toRow(row: Record<string, unknown>, metrics: GroupMetrics, opportunity: number): DrilldownRow {
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
