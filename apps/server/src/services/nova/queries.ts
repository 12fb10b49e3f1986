import type pg from 'pg'
import { kyselyOf, type LeftJoined, type Row } from '../../db/kysely.js'
import { COUNT_KEYS, type NovaCounts } from './metrics.js'

/**
 * Nova's SQL: counting only (docs/decisions/0038). Windows are calendar years: the 5-year window is the five
 * years ending with the latest year that holds Nova data (cases or purchases), the 1-year window that year.
 * Facility-year counts come from the materialised views mv_facility_snakebite and
 * mv_facility_antivenom_purchases; initial encounters, clinicians and payer mix from snakebite_cases and its
 * claims; national prescribing from mv_prescriber_summaries (pharmacy claims); patient panels from
 * mv_provider_panel (claims).
 */

/** NDCs of the antivenoms (packages/data-kit reference: CroFab 50633-0110-11/-12, Anavip 66621-0790-02). */
export const ANTIVENOM_NDC_PREFIXES = ['50633-0110-', '66621-0790-'] as const

export interface NovaYears {
  first_year: number | null
  latest_year: number | null
}

export async function novaYears(pool: pg.Pool): Promise<NovaYears> {
  const { rows } = await pool.query<{ latest: number | null; first: number | null }>(
    `SELECT greatest((SELECT max(year) FROM mv_facility_snakebite), (SELECT max(year) FROM mv_facility_antivenom_purchases)) AS latest,
            least((SELECT min(year) FROM mv_facility_snakebite), (SELECT min(year) FROM mv_facility_antivenom_purchases)) AS first`,
  )
  const row = rows[0]
  const latest = row?.latest ?? null
  return { latest_year: latest, first_year: latest === null ? null : Math.max(row?.first ?? latest, latest - 4) }
}

/** A resolved scope: the whole country, a state, or a sales territory. */
export type Scope =
  | { level: 'COUNTRY' }
  | { level: 'STATE'; state: string; stateName: string }
  | { level: 'SALES_TERRITORY'; territory: { id: number; name: string; state: string } }

/** The facility columns Nova reads, with its health system's code and name. */
export type FacilityRecord = Pick<
  Row<'facilities'>,
  | 'id'
  | 'npi'
  | 'name'
  | 'facility_type'
  | 'hco_compile_level_1'
  | 'city'
  | 'state'
  | 'zip_code'
  | 'county_fips'
  | 'address_line_1'
  | 'latitude'
  | 'longitude'
  | 'phone_number'
  | 'health_system_id'
> & {
  healthsystem_id: Row<'health_systems'>['healthsystem_id'] | null
  health_system_name: Row<'health_systems'>['name'] | null
}

/** An active facility with its counts of the 5-year window. */
export type FacilityRow = FacilityRecord & NovaCounts

export interface FacilityFilter {
  healthSystemId?: string
  facilityNpi?: string
  facilityIds?: number[]
}

const COUNT_SOURCE: Record<(typeof COUNT_KEYS)[number], string> = {
  cases_5y: 'sb.cases_5y',
  cases_1y: 'sb.cases_1y',
  initials_5y: 'ini.initials_5y',
  initials_1y: 'ini.initials_1y',
  crofab_patients_5y: 'sb.crofab_patients_5y',
  crofab_patients_1y: 'sb.crofab_patients_1y',
  anavip_patients_5y: 'sb.anavip_patients_5y',
  anavip_patients_1y: 'sb.anavip_patients_1y',
  crofab_used_5y: 'sb.crofab_used_5y',
  crofab_used_1y: 'sb.crofab_used_1y',
  anavip_used_5y: 'sb.anavip_used_5y',
  anavip_used_1y: 'sb.anavip_used_1y',
  crofab_bought_5y: 'pu.crofab_bought_5y',
  crofab_bought_1y: 'pu.crofab_bought_1y',
  anavip_bought_5y: 'pu.anavip_bought_5y',
  anavip_bought_1y: 'pu.anavip_bought_1y',
}

const countColumns = COUNT_KEYS.map((k) => `coalesce(${COUNT_SOURCE[k]}, 0)::int AS "${k}"`).join(',\n       ')

/** ICD-10-CM initial encounter: the 7th character of the code is A (T63.011A). */
export const INITIAL_ENCOUNTER_SQL = `length(replace(s.icd10_code, '.', '')) = 7 AND right(s.icd10_code, 1) = 'A'`

export function facilityCountsSql(): string {
  return `
WITH sb AS (
  SELECT m.facility_id,
         sum(m.cases) AS cases_5y, sum(m.cases) FILTER (WHERE m.year = $1) AS cases_1y,
         sum(m.crofab_cases) AS crofab_patients_5y, sum(m.crofab_cases) FILTER (WHERE m.year = $1) AS crofab_patients_1y,
         sum(m.anavip_cases) AS anavip_patients_5y, sum(m.anavip_cases) FILTER (WHERE m.year = $1) AS anavip_patients_1y,
         sum(m.crofab_units_used) AS crofab_used_5y, sum(m.crofab_units_used) FILTER (WHERE m.year = $1) AS crofab_used_1y,
         sum(m.anavip_units_used) AS anavip_used_5y, sum(m.anavip_units_used) FILTER (WHERE m.year = $1) AS anavip_used_1y
  FROM mv_facility_snakebite m
  WHERE m.year BETWEEN $1 - 4 AND $1
  GROUP BY m.facility_id
), pu AS (
  SELECT a.facility_id,
         sum(a.units) FILTER (WHERE a.product = 'crofab') AS crofab_bought_5y,
         sum(a.units) FILTER (WHERE a.product = 'crofab' AND a.year = $1) AS crofab_bought_1y,
         sum(a.units) FILTER (WHERE a.product = 'anavip') AS anavip_bought_5y,
         sum(a.units) FILTER (WHERE a.product = 'anavip' AND a.year = $1) AS anavip_bought_1y
  FROM mv_facility_antivenom_purchases a
  WHERE a.year BETWEEN $1 - 4 AND $1
  GROUP BY a.facility_id
), act AS (
  SELECT facility_id FROM sb UNION SELECT facility_id FROM pu
), scoped AS (
  SELECT f.id, f.npi, f.name, f.facility_type, f.hco_compile_level_1, f.city, f.state, f.zip_code, f.county_fips, f.address_line_1,
         f.latitude, f.longitude, f.phone_number, f.health_system_id
  FROM act JOIN facilities f ON f.id = act.facility_id
  LEFT JOIN health_systems h ON h.id = f.health_system_id
  WHERE ($2::text IS NULL OR f.state = $2)
    AND ($3::int IS NULL OR f.county_fips IN (SELECT tc.county_fips FROM sales_territory_counties tc WHERE tc.territory_id = $3))
    AND ($4::text IS NULL OR h.healthsystem_id = $4)
    AND ($5::text IS NULL OR f.npi = $5)
    AND ($6::int[] IS NULL OR f.id = ANY($6))
), ini AS (
  -- one index range (facility_id, event_date) per facility of the scope: the planner cannot estimate the
  -- initial-encounter test, and a join it plans from that estimate scans every case once per facility
  SELECT sc.id AS facility_id, x.initials_5y, x.initials_1y
  FROM scoped sc
  CROSS JOIN LATERAL (
    SELECT count(*) AS initials_5y, count(*) FILTER (WHERE s.event_date >= make_date($1, 1, 1)) AS initials_1y
    FROM snakebite_cases s
    WHERE s.facility_id = sc.id
      AND s.event_date >= make_date($1 - 4, 1, 1) AND s.event_date < make_date($1 + 1, 1, 1)
      AND ${INITIAL_ENCOUNTER_SQL}
  ) x
)
SELECT f.id, f.npi, f.name, f.facility_type, f.hco_compile_level_1, f.city, f.state, f.zip_code, f.county_fips,
       f.address_line_1, f.latitude, f.longitude, f.phone_number, f.health_system_id,
       h.healthsystem_id, h.name AS health_system_name,
       ${countColumns}
FROM scoped f
LEFT JOIN health_systems h ON h.id = f.health_system_id
LEFT JOIN sb ON sb.facility_id = f.id
LEFT JOIN pu ON pu.facility_id = f.id
LEFT JOIN ini ON ini.facility_id = f.id
ORDER BY f.id`
}

/** Facilities with envenomations or antivenom purchases in the 5-year window, in the scope, with their counts. */
export async function facilityCounts(pool: pg.Pool, latestYear: number, scope: Scope, filter: FacilityFilter = {}): Promise<FacilityRow[]> {
  const { rows } = await pool.query<FacilityRow>({
    name: 'nova_facility_counts',
    text: facilityCountsSql(),
    values: [
      latestYear,
      scope.level === 'STATE' ? scope.state : null,
      scope.level === 'SALES_TERRITORY' ? scope.territory.id : null,
      filter.healthSystemId ?? null,
      filter.facilityNpi ?? null,
      filter.facilityIds ?? null,
    ],
  })
  return rows
}

/** A facility by NPI, active or not (the first of several with the same NPI). */
export async function facilityByNpi(pool: pg.Pool, npi: string): Promise<FacilityRecord | null> {
  const row = await kyselyOf(pool)
    .selectFrom('facilities as f')
    .leftJoin('health_systems as h', 'h.id', 'f.health_system_id')
    .select([
      'f.id',
      'f.npi',
      'f.name',
      'f.facility_type',
      'f.hco_compile_level_1',
      'f.city',
      'f.state',
      'f.zip_code',
      'f.county_fips',
      'f.address_line_1',
      'f.latitude',
      'f.longitude',
      'f.phone_number',
      'f.health_system_id',
      'h.healthsystem_id',
      'h.name as health_system_name',
    ])
    .where('f.npi', '=', npi)
    .executeTakeFirst()
  return row ?? null
}

export type HealthSystemRecord = Pick<
  Row<'health_systems'>,
  'id' | 'healthsystem_id' | 'name' | 'control_type' | 'state' | 'city' | 'website_domain' | 'phone_number'
> & {
  number_of_hospitals_owned: number
  number_of_facilities_owned: number
  number_of_affiliated_hcps: number
  phone_numbers: string[]
}

export async function healthSystems(pool: pg.Pool, where: { ids?: number[]; healthsystemId?: string }): Promise<HealthSystemRecord[]> {
  const { rows } = await pool.query<HealthSystemRecord>(
    `SELECT h.id, h.healthsystem_id, h.name, h.control_type, h.state, h.city, h.website_domain, h.phone_number,
            (SELECT count(*) FROM facilities f WHERE f.health_system_id = h.id AND f.facility_type IN ('hospital', 'critical_access'))::int AS number_of_hospitals_owned,
            (SELECT count(*) FROM facilities f WHERE f.health_system_id = h.id)::int AS number_of_facilities_owned,
            0 AS number_of_affiliated_hcps,
            array_remove(ARRAY[h.phone_number] || ARRAY(SELECT DISTINCT f.phone_number FROM facilities f
               WHERE f.health_system_id = h.id AND f.phone_number IS NOT NULL AND f.phone_number IS DISTINCT FROM h.phone_number
               ORDER BY f.phone_number LIMIT 4), NULL) AS phone_numbers
     FROM health_systems h
     WHERE ($1::int[] IS NULL OR h.id = ANY($1)) AND ($2::text IS NULL OR h.healthsystem_id = $2)`,
    [where.ids ?? null, where.healthsystemId ?? null],
  )
  return rows
}

/**
 * Clinicians affiliated with each facility (providers.facility_id) by specialty, and in all per health system:
 * one aggregate over every provider, which the Nova engine keeps per data version (at full scale a per-page count
 * walked ~100,000 provider rows by index and took over a second); while it builds, the same aggregate over a call's
 * facilities only (AffiliationsOf).
 */
export interface Affiliations {
  /** facility id → specialty → clinicians */
  byFacility: Map<number, Map<string, number>>
  /** health system id → clinicians at its facilities */
  bySystem: Map<number, number>
}

/**
 * The facilities and health systems a call's affiliations are read for (while the engine builds): these facilities,
 * the facilities of an NPI, and every facility of these health systems (a system's count is over all of them).
 */
export interface AffiliationsOf {
  facilityIds: number[]
  facilityNpi: string | null
  systemIds: number[]
}

export async function affiliations(pool: pg.Pool, only?: AffiliationsOf): Promise<Affiliations> {
  const { rows } = await pool.query<
    // the join keeps providers with a facility only
    { facility_id: NonNullable<Row<'providers'>['facility_id']>; specialty: Row<'providers'>['cms_specialization']; n: number } & Pick<
      Row<'facilities'>,
      'health_system_id'
    >
  >(
    only === undefined
      ? `SELECT p.facility_id, f.health_system_id, p.cms_specialization AS specialty, count(*)::int AS n
         FROM providers p JOIN facilities f ON f.id = p.facility_id
         GROUP BY p.facility_id, f.health_system_id, p.cms_specialization`
      : `SELECT p.facility_id, f.health_system_id, p.cms_specialization AS specialty, count(*)::int AS n
         FROM providers p JOIN facilities f ON f.id = p.facility_id
         WHERE p.facility_id IN (SELECT o.id FROM facilities o WHERE o.id = ANY($1::int[]) OR o.npi = $2 OR o.health_system_id = ANY($3::int[]))
         GROUP BY p.facility_id, f.health_system_id, p.cms_specialization`,
    only === undefined ? [] : [only.facilityIds, only.facilityNpi, only.systemIds],
  )
  const byFacility = new Map<number, Map<string, number>>()
  const bySystem = new Map<number, number>()
  for (const r of rows) {
    let specialties = byFacility.get(r.facility_id)
    if (!specialties) byFacility.set(r.facility_id, (specialties = new Map()))
    specialties.set(r.specialty, (specialties.get(r.specialty) ?? 0) + r.n)
    if (r.health_system_id !== null) bySystem.set(r.health_system_id, (bySystem.get(r.health_system_id) ?? 0) + r.n)
  }
  return { byFacility, bySystem }
}

export type ProviderRecord = Pick<
  Row<'providers'>,
  | 'id'
  | 'npi'
  | 'full_name'
  | 'first_name'
  | 'last_name'
  | 'title'
  | 'cms_specialization'
  | 'phone_number'
  | 'years_in_practice'
  | 'age'
  | 'gender'
  | 'address'
  | 'city'
  | 'state'
  | 'zip_code'
  | 'latitude'
  | 'longitude'
> &
  // the clinician's patient panel from the claims (none without claims)
  LeftJoined<Pick<Row<'mv_provider_panel'>, 'last_year_patient_count' | 'last_month_new_patient_count'>> & {
    facility_name: Row<'facilities'>['name'] | null
    antivenom_patients_all_sites_5y: number | null
  }

export async function providersByNpi(pool: pg.Pool, npis: string[]): Promise<Map<string, ProviderRecord>> {
  if (npis.length === 0) return new Map()
  const { rows } = await pool.query<ProviderRecord>(
    `SELECT p.id, p.npi, p.full_name, p.first_name, p.last_name, p.title, p.cms_specialization, p.phone_number, p.years_in_practice,
            p.age, p.gender, p.address, p.city, p.state, p.zip_code, p.latitude, p.longitude, f.name AS facility_name,
            pp.last_year_patient_count, pp.last_month_new_patient_count,
            (SELECT sum(ps.patients_5yr)::int FROM mv_prescriber_summaries ps
              WHERE ps.npi = p.npi AND (ps.ndc LIKE $2 OR ps.ndc LIKE $3)) AS antivenom_patients_all_sites_5y
     FROM providers p
     LEFT JOIN facilities f ON f.id = p.facility_id
     LEFT JOIN mv_provider_panel pp ON pp.npi = p.npi
     WHERE p.npi = ANY($1)`,
    [npis, `${ANTIVENOM_NDC_PREFIXES[0]}%`, `${ANTIVENOM_NDC_PREFIXES[1]}%`],
  )
  return new Map(rows.map((r) => [r.npi, r]))
}

/** The national top antivenom prescribers (pharmacy claims, 5 years): npi → rank (1-based). */
export async function topPrescriberRanks(pool: pg.Pool, limit: number): Promise<Map<string, number>> {
  const { rows } = await pool.query<Pick<Row<'mv_prescriber_summaries'>, 'npi'>>(
    `SELECT ps.npi FROM mv_prescriber_summaries ps
     WHERE ps.ndc LIKE $1 OR ps.ndc LIKE $2
     GROUP BY ps.npi ORDER BY sum(ps.patients_5yr) DESC, ps.npi LIMIT $3`,
    [`${ANTIVENOM_NDC_PREFIXES[0]}%`, `${ANTIVENOM_NDC_PREFIXES[1]}%`, limit],
  )
  return new Map(rows.map((r, i) => [r.npi, i + 1]))
}

/** Per facility and clinician who treated an envenomation there in the 5-year window: that clinician's counts. */
export type HcpCountRow = NovaCounts & Pick<Row<'snakebite_cases'>, 'facility_id'> & { npi: Row<'snakebite_cases'>['provider_npi'] }

/**
 * The counts of every (facility, clinician) pair of the 5-year window in one pass over the window's cases (the
 * HCP lists, the top prescribers and the treating-clinician counts are all read from these). Nothing is bought
 * by a clinician: the purchase counts are 0. `facilityIds`: those facilities' pairs only (a call's rows while the
 * engine builds).
 */
export async function hcpCountsAll(pool: pg.Pool, latestYear: number, facilityIds: number[] | null = null): Promise<HcpCountRow[]> {
  const { rows } = await pool.query<HcpCountRow>(
    `SELECT s.facility_id, s.provider_npi AS npi,
            count(*)::int AS cases_5y,
            count(*) FILTER (WHERE s.event_date >= make_date($1, 1, 1))::int AS cases_1y,
            count(*) FILTER (WHERE ${INITIAL_ENCOUNTER_SQL})::int AS initials_5y,
            count(*) FILTER (WHERE ${INITIAL_ENCOUNTER_SQL} AND s.event_date >= make_date($1, 1, 1))::int AS initials_1y,
            count(*) FILTER (WHERE s.antivenom = 'crofab')::int AS crofab_patients_5y,
            count(*) FILTER (WHERE s.antivenom = 'crofab' AND s.event_date >= make_date($1, 1, 1))::int AS crofab_patients_1y,
            count(*) FILTER (WHERE s.antivenom = 'anavip')::int AS anavip_patients_5y,
            count(*) FILTER (WHERE s.antivenom = 'anavip' AND s.event_date >= make_date($1, 1, 1))::int AS anavip_patients_1y,
            coalesce(sum(s.units_used) FILTER (WHERE s.antivenom = 'crofab'), 0)::int AS crofab_used_5y,
            coalesce(sum(s.units_used) FILTER (WHERE s.antivenom = 'crofab' AND s.event_date >= make_date($1, 1, 1)), 0)::int AS crofab_used_1y,
            coalesce(sum(s.units_used) FILTER (WHERE s.antivenom = 'anavip'), 0)::int AS anavip_used_5y,
            coalesce(sum(s.units_used) FILTER (WHERE s.antivenom = 'anavip' AND s.event_date >= make_date($1, 1, 1)), 0)::int AS anavip_used_1y,
            0 AS crofab_bought_5y, 0 AS crofab_bought_1y, 0 AS anavip_bought_5y, 0 AS anavip_bought_1y
     FROM snakebite_cases s
     WHERE s.event_date >= make_date($1 - 4, 1, 1) AND s.event_date < make_date($1 + 1, 1, 1)
       AND ($2::int[] IS NULL OR s.facility_id = ANY($2))
     GROUP BY s.facility_id, s.provider_npi
     ORDER BY s.facility_id, s.provider_npi`,
    [latestYear, facilityIds],
  )
  return rows
}

/** Payer types of the envenomation claims of every facility over 5 years. */
export type PayerCountRow = Pick<Row<'snakebite_cases'>, 'facility_id'> & Pick<Row<'claims'>, 'payer_type'> & { n: number }

export async function payerCountsAll(pool: pg.Pool, latestYear: number, facilityIds: number[] | null = null): Promise<PayerCountRow[]> {
  const { rows } = await pool.query<PayerCountRow>(
    `SELECT s.facility_id, c.payer_type, count(*)::int AS n
     FROM snakebite_cases s JOIN claims c ON c.id = s.claim_id AND c.patient_id = s.patient_id
     WHERE s.event_date >= make_date($1 - 4, 1, 1) AND s.event_date < make_date($1 + 1, 1, 1)
       AND ($2::int[] IS NULL OR s.facility_id = ANY($2))
     GROUP BY s.facility_id, c.payer_type`,
    [latestYear, facilityIds],
  )
  return rows
}

/** Whether a health system with this id exists (one with no antivenom activity answers an empty list, not 404). */
export async function healthSystemExists(pool: pg.Pool, healthsystemId: string): Promise<boolean> {
  const row = await kyselyOf(pool)
    .selectFrom('health_systems')
    .select('id')
    .where('healthsystem_id', '=', healthsystemId)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

// ---------------------------------------------------------------- scopes and shapes

/** Every state (abbr, name, and whether it has an outline for the national map). */
export async function allStates(pool: pg.Pool): Promise<(Pick<Row<'states'>, 'abbr' | 'name'> & { has_geom: boolean })[]> {
  const { rows } = await pool.query<Pick<Row<'states'>, 'abbr' | 'name'> & { has_geom: boolean }>(
    'SELECT abbr, name, geom IS NOT NULL AS has_geom FROM states ORDER BY abbr',
  )
  return rows
}

/** The counties of every territory of the use case. */
export async function territoryCountyList(pool: pg.Pool, useCase: string): Promise<Map<number, Set<string>>> {
  const rows = await kyselyOf(pool)
    .selectFrom('sales_territory_counties as tc')
    .innerJoin('sales_territories as t', 't.id', 'tc.territory_id')
    .select(['tc.territory_id', 'tc.county_fips'])
    .where('t.nova_use_case', '=', territoryUseCase(useCase))
    .execute()
  const out = new Map<number, Set<string>>()
  for (const r of rows) {
    let set = out.get(r.territory_id)
    if (!set) out.set(r.territory_id, (set = new Set()))
    set.add(r.county_fips)
  }
  return out
}

export type TerritoryRecord = Pick<Row<'sales_territories'>, 'id' | 'name' | 'state'>

/** Territories of a use case ('general' reads the serb_crofab territories: there is one antivenom dataset). */
export async function territories(pool: pg.Pool, useCase: string): Promise<TerritoryRecord[]> {
  return kyselyOf(pool)
    .selectFrom('sales_territories')
    .select(['id', 'name', 'state'])
    .where('nova_use_case', '=', territoryUseCase(useCase))
    .orderBy('state')
    .orderBy('name')
    .execute()
}

export const territoryUseCase = (useCase: string) => (useCase === 'general' ? 'serb_crofab' : useCase)
