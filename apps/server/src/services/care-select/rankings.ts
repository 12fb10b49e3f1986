import {
  CARE_AFFORDABLE_MIN_COST,
  CARE_MAX_HCO_RESULTS,
  CARE_MESSAGES,
  CARE_MIN_PRICE_PEERS,
  CARE_SCORE_WEIGHTS,
  METERS_PER_MILE,
  gradeOf,
  institutionTypeOf,
  providerTypeOf,
  type CareBadge,
  type HcoRanking,
  type HcpRanking,
  type ParsedRankingsQuery,
  type RankingsResponse,
} from '@citrus/contracts'
import type pg from 'pg'
import type { Row } from '../../db/kysely.js'
import { readPoolForVersion } from '../../db/replicas.js'
import { badRequest } from '../../lib/errors.js'
import { DATA_VERSION_SQL } from '../../lib/versioned-cache.js'
import { careSelectCandidates } from '../../engines/care-select/candidate-index.js'
import { narrowScored, scoreAll, type ScoredSearch } from './score.js'
import { scoredSearchCache, scoredSearchKey, type SentAnswer } from './scored-cache.js'

/**
 * Care Select rankings (spec 4 §5; the method: docs/decisions/0022-care-select-ranking.md, every candidate
 * scored; the in-process candidate index: docs/decisions/0050-care-select-scored-set.md). Two round trips:
 * (1) resolve and check the inputs (and read the data version); the candidates, their code volumes and prices
 * come from the in-process candidate index, and percentiles and scores are computed here over every candidate
 * within the radius, or taken from the result cache of scored searches (scored-cache.ts, docs/decisions/0060);
 * (2) the details of the clinicians and facilities listed.
 */

export interface ResolvedSearch {
  zip: string
  latitude: number
  longitude: number
  city: string
  state: string
  omniCode: string
  specialty: string
  /** carriers (canonical names), CPT and ICD-10-CM codes: sorted, so that a search is scored alike in any order */
  insurers: string[]
  cpt: string[]
  icd10: string[]
  radiusM: number
  filterNpis: string[]
  /** the data version (finished data loads): the candidate index is kept per version */
  version: string
}

/** ICD-10-CM as typed: upper case; an undotted code longer than a category gets its dot (E119 → E11.9). */
export function normalizeIcd10(code: string): string {
  const upper = code.toUpperCase().replace(/\s/g, '')
  if (upper.includes('.') || upper.length <= 3) return upper
  return `${upper.slice(0, 3)}.${upper.slice(3)}`
}

const RESOLVE_INPUTS_SQL = `
SELECT
  (SELECT json_build_object('latitude', z.latitude, 'longitude', z.longitude, 'city', z.city, 'state', z.state)
     FROM zips z WHERE z.zip = $1) AS zip,
  (SELECT s.display_name FROM specialties s WHERE s.code = $2) AS specialty,
  (SELECT coalesce(json_agg(json_build_array(n.name, i.name) ORDER BY n.ord), '[]')
     FROM unnest($3::text[]) WITH ORDINALITY AS n(name, ord)
     LEFT JOIN LATERAL (SELECT i.name FROM insurers i WHERE lower(i.name) = lower(n.name) ORDER BY i.name = n.name DESC LIMIT 1) i ON true) AS insurers,
  (SELECT coalesce(json_agg(c.code ORDER BY c.ord), '[]') FROM unnest($4::text[]) WITH ORDINALITY AS c(code, ord)
     WHERE NOT EXISTS (SELECT 1 FROM procedure_codes p WHERE p.code = c.code)) AS unknown_cpt,
  (SELECT coalesce(json_agg(c.code ORDER BY c.ord), '[]') FROM unnest($5::text[]) WITH ORDINALITY AS c(code, ord)
     WHERE NOT EXISTS (SELECT 1 FROM icd10_codes i WHERE i.code = c.code)) AS unknown_icd10,
  $6::text AS version`

/** The same, reading the data version itself (a search without a request's version: the referral letter's). */
const RESOLVE_SQL = RESOLVE_INPUTS_SQL.replace('$6::text AS version', `${DATA_VERSION_SQL} AS version`)

/**
 * Checks the search's ZIP, specialty, carriers and codes; 400 naming the field when one is unknown. With the request's
 * data `version` (read with its principal) the check is a read-only look-up of that version, on a read replica that
 * holds it where there is one (issue 34 §2); without, it reads the version itself on the primary.
 */
export async function resolveSearch(pool: pg.Pool, query: ParsedRankingsQuery, version?: string): Promise<ResolvedSearch> {
  const cpt = [...new Set(query.cpt_union_csv.map((code) => code.toUpperCase()))]
  const icd10 = [...new Set(query.icd10_cm_union_csv.map(normalizeIcd10))]
  const omniCode = query.omni_code.toUpperCase()
  const reader = version === undefined ? pool : await readPoolForVersion(pool, version)
  const { rows } = await reader.query<{
    zip: Pick<Row<'zips'>, 'latitude' | 'longitude' | 'city' | 'state'> | null
    specialty: Row<'specialties'>['display_name'] | null
    insurers: [string, string | null][]
    unknown_cpt: string[]
    unknown_icd10: string[]
    version: string
  }>(
    version === undefined
      ? { name: 'care-select-resolve', text: RESOLVE_SQL, values: [query.zip_code, omniCode, query.insurance_names_csv, cpt, icd10] }
      : {
          name: 'care-select-resolve-inputs',
          text: RESOLVE_INPUTS_SQL,
          values: [query.zip_code, omniCode, query.insurance_names_csv, cpt, icd10, version],
        },
  )
  const row = rows[0]
  if (!row) throw new Error('resolve query returned no row')
  const errors: { path: string; message: string }[] = []
  if (!row.zip) errors.push({ path: 'querystring.zip_code', message: CARE_MESSAGES.zipUnknown(query.zip_code) })
  if (row.specialty === null) errors.push({ path: 'querystring.omni_code', message: CARE_MESSAGES.specialtyUnknown(query.omni_code) })
  const unknownInsurer = row.insurers.find(([, canonical]) => canonical === null)
  if (unknownInsurer) errors.push({ path: 'querystring.insurance_names_csv', message: CARE_MESSAGES.insurerUnknown(unknownInsurer[0]) })
  if (row.unknown_cpt[0])
    errors.push({ path: 'querystring.cpt_union_csv', message: CARE_MESSAGES.codeUnknown('cpt_union_csv', row.unknown_cpt[0]) })
  if (row.unknown_icd10[0]) {
    errors.push({ path: 'querystring.icd10_cm_union_csv', message: CARE_MESSAGES.codeUnknown('icd10_cm_union_csv', row.unknown_icd10[0]) })
  }
  const first = errors[0]
  if (first || !row.zip || row.specialty === null) throw badRequest(first?.message ?? 'Invalid search', errors)
  return {
    zip: query.zip_code,
    ...row.zip,
    omniCode,
    specialty: row.specialty,
    insurers: [...new Set(row.insurers.map(([, canonical]) => canonical as string))].sort(),
    cpt: [...cpt].sort(),
    icd10: [...icd10].sort(),
    radiusM: query.radius_in_m,
    filterNpis: query.filter_npis,
    version: row.version,
  }
}

type Kind = 'procedure' | 'icd10'

/**
 * The listed clinicians' details, one row each (plain rows: building them as JSON cost PostgreSQL twice the CPU, and
 * the process a parse of the whole document; docs/decisions/0073). The facility and panel of each are looked up one
 * by one (LATERAL with LIMIT 1, which the planner cannot flatten into a join): as a plain join, the planner chose a
 * merge join that walks the facilities' primary key from the start up to the largest facility id listed.
 */
const PROVIDER_DETAILS_SQL = `
SELECT p.npi, p.full_name, p.title, p.cms_specialization, p.address, p.city, p.state, p.zip_code, p.latitude, p.longitude,
       p.phone_number, f.npi AS hco_npi, f.name AS hco_name, f.hco_compile_level_1, p.medical_school, p.years_in_practice,
       p.gender, p.website, p.aggregated_insurance_networks_v1, p.confidence,
       to_char(p.last_verified_at, 'YYYY-MM-DD') AS last_verified_at,
       coalesce(pp.last_year_patient_count, 0) AS last_year_patient_count,
       coalesce(pp.last_month_new_patient_count, 0) AS last_month_new_patient_count
FROM providers p
LEFT JOIN LATERAL (SELECT f.npi, f.name, f.hco_compile_level_1 FROM facilities f WHERE f.id = p.facility_id LIMIT 1) f ON true
LEFT JOIN LATERAL (SELECT pp.last_year_patient_count, pp.last_month_new_patient_count FROM mv_provider_panel pp WHERE pp.npi = p.npi LIMIT 1) pp ON true
WHERE p.npi = ANY($1::bpchar[])`

/** The listed facilities' details and the descriptions of the answer's codes. */
const DETAILS_SQL = `
SELECT
  (SELECT coalesce(json_agg(json_build_object(
      'id', f.id, 'npi', f.npi, 'name', f.name, 'address', f.address_line_1, 'city', f.city, 'state', f.state,
      'zip_code', f.zip_code, 'latitude', f.latitude, 'longitude', f.longitude, 'phone_number', f.phone_number,
      'hco_compile_level_1', f.hco_compile_level_1)), '[]')
   FROM facilities f WHERE f.id = ANY($1::int[])) AS facilities,
  (SELECT coalesce(json_object_agg(i.code, i.description), '{}') FROM icd10_codes i WHERE i.code = ANY($2::text[])) AS icd10,
  (SELECT coalesce(json_object_agg(c.code, c.description), '{}') FROM procedure_codes c WHERE c.code = ANY($3::text[])) AS procedures`

/** A row of PROVIDER_DETAILS_SQL: the provider's columns, its facility's, its panel's counts (mv_provider_panel, 0 without a row). */
type ProviderDetails = Pick<
  Row<'providers'>,
  | 'npi'
  | 'full_name'
  | 'title'
  | 'cms_specialization'
  | 'address'
  | 'city'
  | 'state'
  | 'zip_code'
  | 'latitude'
  | 'longitude'
  | 'phone_number'
  | 'medical_school'
  | 'years_in_practice'
  | 'gender'
  | 'website'
  /** numeric(3,2): pg reads it as text */
  | 'confidence'
> & {
  hco_npi: Row<'facilities'>['npi']
  hco_name: Row<'facilities'>['name'] | null
  hco_compile_level_1: Row<'facilities'>['hco_compile_level_1'] | null
  /** jsonb (unknown in Row<'providers'>): the insurer → in-network object the loads write */
  aggregated_insurance_networks_v1: Record<string, boolean>
  /** to_char(last_verified_at, 'YYYY-MM-DD') */
  last_verified_at: string
} & Pick<Row<'mv_provider_panel'>, 'last_year_patient_count' | 'last_month_new_patient_count'>
/** A facility of DETAILS_SQL (address: address_line_1). */
type FacilityDetails = Pick<
  Row<'facilities'>,
  'id' | 'npi' | 'name' | 'city' | 'state' | 'zip_code' | 'latitude' | 'longitude' | 'phone_number' | 'hco_compile_level_1'
> & { address: Row<'facilities'>['address_line_1'] }

/** DETAILS_SQL's one row */
interface ListedDetails {
  facilities: FacilityDetails[]
  icd10: Record<string, string>
  procedures: Record<string, string>
}

const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits

interface Scored {
  npi: string
  facilityId: number | null
  providerKind: string
  accepting: boolean
  distanceM: number
  inNetwork: boolean | null
  quality: number
  cost: number | null
  distance: number
  final: number
  relevantVolume: number
  pricePeersMin: number
  given: Record<Kind, Record<string, number>>
  topical: Record<Kind, Record<string, number>>
  percentiles: Record<Kind, { code: string; count: number; percentile: number }[]>
  prices: {
    list: Record<string, number>
    negotiated: Record<string, number>
    insurer: Record<string, number>
    patient: Record<string, number>
  }
  affordability: { negotiated: Record<string, number>; patient: Record<string, number> }
  sources: Record<string, 'claims' | 'payer_file'>
}

/**
 * Scores every candidate of the search (score.ts) from the specialty's candidate index, or answers the scoring of
 * the same search and data version from the result cache unless `bypassCache` (docs/decisions/0060); filter_npis
 * then narrows what is listed.
 */
export async function scoreOf(pool: pg.Pool, search: ResolvedSearch, bypassCache = false): Promise<ScoredSearch> {
  const { scored } = await scoredSearchCache(pool).scored(scoredSearchKey(search), search.version, bypassCache, () =>
    scoreFresh(pool, search),
  )
  return narrowScored(scored, search.filterNpis)
}

/** The scoring of a search, every candidate within the radius (score.ts scoreAll), from the candidate index. */
async function scoreFresh(pool: pg.Pool, search: ResolvedSearch): Promise<ScoredSearch> {
  const { index, facilities } = await careSelectCandidates.rows(pool, search.version, {
    taxonomy: search.omniCode,
    area: { lat: search.latitude, lng: search.longitude, radiusM: search.radiusM },
  })
  return scoreAll(index, facilities, {
    centre: { lat: search.latitude, lng: search.longitude },
    radiusM: search.radiusM,
    cpt: search.cpt,
    icd10: search.icd10,
    insurers: search.insurers,
  })
}

/** The answer of a search; `bypassCache` (_bypass_cache) scores afresh instead of answering from the result cache. */
export async function rankProviders(pool: pg.Pool, search: ResolvedSearch, bypassCache = false): Promise<RankingsResponse> {
  return rankingsOf(pool, search, await scoreOf(pool, search, bypassCache))
}

/** filter_npis as an answer's variant in the cache: a set (the answer does not depend on its order or repeats). */
export function filterVariant(filterNpis: readonly string[]): string {
  return [...new Set(filterNpis)].sort().join(',')
}

/**
 * The answer of a search as sent (its JSON, UTF-8): the one kept with the search's scoring in the result cache when
 * the same search (and filter_npis) was answered before at this data version, else written from the scoring (cached
 * or scored now) and kept with it (docs/decisions/0063). The bytes are those JSON.stringify gives of rankProviders'
 * answer, cached or not (compressed, when the client accepts it, by the HTTP layer: docs/decisions/0077).
 * `bypassCache` scores and writes afresh.
 */
export async function rankingsJson(pool: pg.Pool, search: ResolvedSearch, bypassCache = false): Promise<SentAnswer> {
  return scoredSearchCache(pool).answer(
    scoredSearchKey(search),
    search.version,
    bypassCache,
    filterVariant(search.filterNpis),
    () => scoreFresh(pool, search),
    async (scored) => Buffer.from(JSON.stringify(await rankingsOf(pool, search, narrowScored(scored, search.filterNpis)))),
  )
}

/**
 * A search's answer as sent (rankingsJson) for the parsed query: its inputs checked first (a 400 costs nothing), then
 * `charge` (the credit, docs/decisions/0047; on a cache hit too, 0060) while the search runs: a refusal (402) discards
 * the ranking, and both settle before an error is thrown so that a failed search's credit is known to the refund (5xx).
 */
export async function answerRankings<C>(
  pool: pg.Pool,
  query: ParsedRankingsQuery,
  charge: () => Promise<C>,
  version?: string,
): Promise<{ body: Buffer; charge: C }> {
  const search = await resolveSearch(pool, query, version)
  const [charged, ranked] = await Promise.allSettled([charge(), rankingsJson(pool, search, query._bypass_cache)])
  if (charged.status === 'rejected') throw charged.reason
  if (ranked.status === 'rejected') throw ranked.reason
  return { body: ranked.value.body, charge: charged.value }
}

/** The answer of a scored search (already narrowed to filter_npis): the listed rows' details and the answer's rows. */
async function rankingsOf(pool: pg.Pool, search: ResolvedSearch, scored: ScoredSearch): Promise<RankingsResponse> {
  const { candidates, n, inNetwork, distanceM, distance, quality, cost, final, relevantVolume, pricePeersMin } = scored
  const { givenCols, topicalCols, relevantCols, codeRanks, typical, relevant, codesSource } = scored
  const index = candidates.index
  const members = candidates.members
  const costOf = (c: number) => (Number.isNaN(cost[c] as number) ? null : (cost[c] as number))

  const providerTypes: Record<string, number> = {}
  for (const { kind, count } of scored.providerTypeCounts) {
    const type = providerTypeOf(kind)
    providerTypes[type] = (providerTypes[type] ?? 0) + count
  }
  const institutionTypes: Record<string, number> = {}
  for (const facilityType of scored.facilityTypes) {
    const type = institutionTypeOf(facilityType)
    institutionTypes[type] = (institutionTypes[type] ?? 0) + 1
  }

  // The rows of what is listed.
  const rowOf = (c: number): Scored => {
    const i = members[c] as number
    const row: Scored = {
      npi: index.npi[i] as string,
      facilityId: (index.facility[i] as number) < 0 ? null : (index.facility[i] as number),
      providerKind: index.kinds[index.kind[i] as number] as string,
      accepting: index.accepting[i] === 1,
      distanceM: distanceM[c] as number,
      inNetwork: inNetwork ? inNetwork[c] === 1 : null,
      quality: quality[c] as number,
      cost: costOf(c),
      distance: distance[c] as number,
      final: final[c] as number,
      relevantVolume: relevantVolume[c] as number,
      pricePeersMin: pricePeersMin[c] as number,
      given: { procedure: {}, icd10: {} },
      topical: { procedure: {}, icd10: {} },
      percentiles: { procedure: [], icd10: [] },
      prices: { list: {}, negotiated: {}, insurer: {}, patient: {} },
      affordability: { negotiated: {}, patient: {} },
      sources: {},
    }
    for (const col of givenCols) if ((col.counts[c] as number) > 0) row.given[col.kind][col.code] = col.counts[c] as number
    for (const col of topicalCols) if ((col.counts[c] as number) > 0) row.topical[col.kind][col.code] = col.counts[c] as number
    relevantCols.forEach((col, k) => {
      const count = col.counts[c] as number
      if (count > 0)
        row.percentiles[col.kind].push({ code: col.code, count, percentile: round((codeRanks[k] as Float64Array)[c] as number, 2) })
    })
    for (const column of scored.prices) {
      const entry = column.entryOf[c] as number
      if (entry < 0) continue
      const code = column.code
      row.sources[code] = column.source
      if (column.source === 'payer_file') {
        // the carrier's negotiated rate alone: no list, insurer or patient amount (docs/decisions/0081)
        row.prices.negotiated[code] = column.rate[entry] as number
        row.affordability.negotiated[code] = round(column.negotiatedAff[entry] as number, 2)
        continue
      }
      const r = column.row[entry] as number
      row.prices.list[code] = index.priceList[r] as number
      row.prices.negotiated[code] = index.priceNegotiated[r] as number
      row.prices.insurer[code] = index.priceInsurer[r] as number
      row.prices.patient[code] = index.pricePatient[r] as number
      row.affordability.negotiated[code] = round(column.negotiatedAff[entry] as number, 2)
      row.affordability.patient[code] = round(column.patientAff[entry] as number, 2)
    }
    return row
  }

  // Details of what is listed (filter_npis narrows before the cut).
  const filter = search.filterNpis.length > 0 ? new Set(search.filterNpis) : null
  const hcpList = Array.from(scored.listed, rowOf)
  const hcoCandidates = scored.facilities
  const allCodes = {
    icd10: [...new Set([...relevant.icd10, ...typical.icd10, ...search.icd10])],
    procedure: [...new Set([...relevant.procedure, ...typical.procedure, ...search.cpt])],
  }
  // read-only look-ups of the search's data version: a read replica that holds it, else the primary (issue 34 §2)
  const reader = await readPoolForVersion(pool, search.version)
  const [providers, details] = await Promise.all([
    reader.query<ProviderDetails>({
      name: 'care-select-provider-details',
      text: PROVIDER_DETAILS_SQL,
      values: [hcpList.map((r) => r.npi)],
    }),
    reader.query<ListedDetails>({
      name: 'care-select-details',
      text: DETAILS_SQL,
      values: [hcoCandidates.map((f) => f.id), allCodes.icd10, allCodes.procedure],
    }),
  ])
  const detail = details.rows[0] as ListedDetails
  const providerByNpi = new Map(providers.rows.map((p) => [p.npi, p]))
  const facilityById = new Map(detail.facilities.map((f) => [f.id, f]))

  const describe = (kind: Kind, code: string) => (kind === 'icd10' ? detail.icd10[code] : detail.procedures[code]) ?? null
  const topPercentiles = (list: { code: string; count: number; percentile: number }[], kind: Kind) =>
    [...list]
      .sort((a, b) => b.percentile - a.percentile || b.count - a.count || a.code.localeCompare(b.code))
      .slice(0, 10)
      .map((entry) => ({ ...entry, description: describe(kind, entry.code) }))

  const hcp_rankings: HcpRanking[] = hcpList.map((row) => {
    const p = providerByNpi.get(row.npi) as ProviderDetails
    const badges: CareBadge[] = []
    if (search.cpt.length > 0 && search.cpt.every((code) => (row.given.procedure[code] ?? 0) > 0)) badges.push('ALL_PROCEDURES_MATCH')
    if (search.icd10.length > 0 && search.icd10.every((code) => (row.given.icd10[code] ?? 0) > 0)) badges.push('ALL_DIAGNOSIS_MATCH')
    if (row.cost !== null && row.cost >= CARE_AFFORDABLE_MIN_COST && row.pricePeersMin >= CARE_MIN_PRICE_PEERS)
      badges.push('CONFIDENTLY_AFFORDABLE')
    if (row.accepting) badges.push('NEW_PATIENT_AVAILABLE')
    return {
      hcp_entity: {
        npi: p.npi,
        full_name: p.full_name,
        title: p.title,
        cms_specialization: p.cms_specialization,
        provider_type: providerTypeOf(row.providerKind),
        address: p.address,
        city: p.city,
        state: p.state,
        zip_code: p.zip_code,
        latitude: p.latitude,
        longitude: p.longitude,
        phone_number: p.phone_number,
        hco_npi: p.hco_npi,
        hco_name: p.hco_name,
        hco_compile_level_1: p.hco_compile_level_1,
        medical_school: p.medical_school,
        years_in_practice: p.years_in_practice,
        gender: p.gender,
        website: p.website,
        accepting_new_patients: row.accepting,
        aggregated_insurance_networks_v1: p.aggregated_insurance_networks_v1,
        directory_confidence: Number(p.confidence),
        last_verified_at: p.last_verified_at,
      },
      final_score: round(row.final),
      final_grade: gradeOf(row.final),
      in_network: row.inNetwork,
      task_scores: {
        distance: round(row.distance),
        distance_grade: gradeOf(row.distance),
        quality_of_care: round(row.quality),
        quality_of_care_grade: gradeOf(row.quality),
        cost: round(row.cost ?? 0.5),
        cost_grade: gradeOf(row.cost),
      },
      features: {
        distance_in_miles: round(row.distanceM / METERS_PER_MILE, 3),
        given_diagnosis_counts: row.given.icd10,
        given_procedure_counts: row.given.procedure,
        topical_diagnosis_counts: row.topical.icd10,
        topical_procedure_counts: row.topical.procedure,
        top_procedure_percentiles: topPercentiles(row.percentiles.procedure, 'procedure'),
        top_diagnosis_percentiles: topPercentiles(row.percentiles.icd10, 'icd10'),
        avg_initial_price_by_procedure: row.prices.list,
        avg_negotiated_price_by_procedure: row.prices.negotiated,
        avg_insurer_price_by_procedure: row.prices.insurer,
        avg_patient_price_by_procedure: row.prices.patient,
        negotiated_affordability_percentiles: row.affordability.negotiated,
        patient_affordability_percentiles: row.affordability.patient,
        price_source_by_procedure: row.sources,
        relevant_claim_count: row.relevantVolume,
        last_year_patient_count: p.last_year_patient_count,
        last_month_new_patient_count: p.last_month_new_patient_count,
      },
      badges,
    }
  })

  const hco_rankings: HcoRanking[] = []
  for (const f of hcoCandidates) {
    const facility = facilityById.get(f.id)
    if (!facility) continue
    if (filter && !(facility.npi !== null && filter.has(facility.npi))) continue
    hco_rankings.push({
      hco_npi: facility.npi,
      hco_id: facility.id,
      hco_name: facility.name,
      hco_address: facility.address,
      city: facility.city,
      state: facility.state,
      zip_code: facility.zip_code,
      latitude: facility.latitude,
      longitude: facility.longitude,
      hco_phone_number: facility.phone_number,
      hco_compile_level_1: facility.hco_compile_level_1,
      institution_type: institutionTypeOf(facility.hco_compile_level_1),
      distance_in_miles: round(f.distanceM / METERS_PER_MILE, 3),
      final_score: round(f.final),
      final_grade: gradeOf(f.final),
      num_hcp_samples: f.samples,
      task_scores: {
        distance: round(f.distance),
        distance_grade: gradeOf(f.distance),
        quality_of_care: round(f.quality),
        quality_of_care_grade: gradeOf(f.quality),
        cost: round(f.cost ?? 0.5),
        cost_grade: gradeOf(f.cost),
      },
    })
    if (hco_rankings.length >= CARE_MAX_HCO_RESULTS) break
  }

  const pick = (table: Record<string, string>, codes: string[]) =>
    Object.fromEntries(codes.flatMap((code) => (table[code] ? [[code, table[code]]] : [])))

  return {
    search_lat: search.latitude,
    search_long: search.longitude,
    state: search.state,
    city: search.city,
    radius_in_m: search.radiusM,
    common_ranking_metadata: {
      provider_types_to_counts: providerTypes,
      institution_types_to_counts: institutionTypes,
      total_hcp_candidates: n,
      total_hco_candidates: scored.totalFacilities,
      diagnosis_code_descriptions: pick(detail.icd10, allCodes.icd10),
      procedure_code_descriptions: pick(detail.procedures, allCodes.procedure),
      taxonomy_code_descriptions: { [search.omniCode]: search.specialty },
      relevant_diagnosis_codes: relevant.icd10,
      relevant_procedure_codes: relevant.procedure,
      codes_source: codesSource,
      weights: { ...CARE_SCORE_WEIGHTS },
    },
    hcp_rankings,
    hco_rankings,
  }
}
