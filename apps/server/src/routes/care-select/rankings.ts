import {
  CARE_AFFORDABLE_MIN_COST,
  CARE_MAX_HCO_RESULTS,
  CARE_MAX_HCP_RESULTS,
  CARE_MESSAGES,
  CARE_MIN_PRICE_PEERS,
  CARE_SCORE_WEIGHTS,
  CARE_TYPICAL_CODES_PER_KIND,
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
import { badRequest } from '../../lib/errors.js'
import {
  exactDistance,
  facilityDistanceWithin,
  facilityPoints,
  findCandidates,
  inNetworkWithAny,
  specialtyIndex,
  type Candidates,
  type FacilityPoint,
  type SpecialtyIndex,
} from './candidate-index.js'

/**
 * Care Select rankings (spec 4 §5; the method: docs/decisions/0022-care-select-ranking.md, every candidate
 * scored; the in-process candidate index: docs/decisions/0050-care-select-scored-set.md). Two round trips:
 * (1) resolve and check the inputs (and read the data version); the candidates, their code volumes and prices
 * come from the in-process candidate index, and percentiles and scores are computed here over every candidate
 * within the radius; (2) the details of the clinicians and facilities listed.
 */

export interface ResolvedSearch {
  zip: string
  latitude: number
  longitude: number
  city: string
  state: string
  omniCode: string
  specialty: string
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

const RESOLVE_SQL = `
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
  (SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || coalesce(max(finished_at)::text, '') FROM data_loads WHERE status = 'done') AS version`

/** Checks the search's ZIP, specialty, carriers and codes; 400 naming the field when one is unknown. */
export async function resolveSearch(pool: pg.Pool, query: ParsedRankingsQuery): Promise<ResolvedSearch> {
  const cpt = query.cpt_union_csv.map((code) => code.toUpperCase())
  const icd10 = [...new Set(query.icd10_cm_union_csv.map(normalizeIcd10))]
  const omniCode = query.omni_code.toUpperCase()
  const { rows } = await pool.query<{
    zip: { latitude: number; longitude: number; city: string; state: string } | null
    specialty: string | null
    insurers: [string, string | null][]
    unknown_cpt: string[]
    unknown_icd10: string[]
    version: string
  }>(RESOLVE_SQL, [query.zip_code, omniCode, query.insurance_names_csv, cpt, icd10])
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
    insurers: [...new Set(row.insurers.map(([, canonical]) => canonical as string))],
    cpt,
    icd10,
    radiusM: query.radius_in_m,
    filterNpis: query.filter_npis,
    version: row.version,
  }
}

type Kind = 'procedure' | 'icd10'

/**
 * The typical codes of the candidates (index positions): per kind, the CARE_TYPICAL_CODES_PER_KIND codes
 * with the most claims over them (ties by code), from the index's copy of mv_provider_code_volume.
 */
function typicalCodesOf(index: SpecialtyIndex, providers: ArrayLike<number>): Record<Kind, string[]> {
  const sums = new Float64Array(index.codes.length)
  for (let k = 0; k < providers.length; k++) {
    const i = providers[k] as number
    for (let r = index.volumeStart[i] as number; r < (index.volumeStart[i + 1] as number); r++) {
      const id = index.volumeCode[r] as number
      sums[id] = (sums[id] as number) + (index.volumeCount[r] as number)
    }
  }
  const lists: Record<Kind, { code: string; sum: number }[]> = { procedure: [], icd10: [] }
  sums.forEach((sum, id) => {
    if (sum === 0) return
    const key = index.codes[id] as string
    if (key.startsWith('procedure:')) lists.procedure.push({ code: key.slice('procedure:'.length), sum })
    else if (key.startsWith('icd10:')) lists.icd10.push({ code: key.slice('icd10:'.length), sum })
  })
  const out: Record<Kind, string[]> = { procedure: [], icd10: [] }
  for (const kind of ['procedure', 'icd10'] as const) {
    const list = lists[kind]
    list.sort((a, b) => b.sum - a.sum || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
    out[kind] = list.slice(0, CARE_TYPICAL_CODES_PER_KIND).map((e) => e.code)
  }
  return out
}

export const DETAILS_SQL = `
SELECT
  (SELECT coalesce(json_agg(json_build_object(
      'npi', p.npi, 'full_name', p.full_name, 'title', p.title, 'cms_specialization', p.cms_specialization,
      'address', p.address, 'city', p.city, 'state', p.state, 'zip_code', p.zip_code, 'latitude', p.latitude,
      'longitude', p.longitude, 'phone_number', p.phone_number, 'hco_npi', f.npi, 'hco_name', f.name,
      'hco_compile_level_1', f.hco_compile_level_1, 'medical_school', p.medical_school,
      'years_in_practice', p.years_in_practice, 'gender', p.gender, 'website', p.website,
      'aggregated_insurance_networks_v1', p.aggregated_insurance_networks_v1, 'confidence', p.confidence,
      'last_verified_at', to_char(p.last_verified_at, 'YYYY-MM-DD'),
      'last_year_patient_count', coalesce(pp.last_year_patient_count, 0),
      'last_month_new_patient_count', coalesce(pp.last_month_new_patient_count, 0))), '[]')
   FROM providers p LEFT JOIN facilities f ON f.id = p.facility_id LEFT JOIN mv_provider_panel pp ON pp.npi = p.npi
   WHERE p.npi = ANY($1::bpchar[])) AS providers,
  (SELECT coalesce(json_agg(json_build_object(
      'id', f.id, 'npi', f.npi, 'name', f.name, 'address', f.address_line_1, 'city', f.city, 'state', f.state,
      'zip_code', f.zip_code, 'latitude', f.latitude, 'longitude', f.longitude, 'phone_number', f.phone_number,
      'hco_compile_level_1', f.hco_compile_level_1)), '[]')
   FROM facilities f WHERE f.id = ANY($2::int[])) AS facilities,
  (SELECT coalesce(json_object_agg(i.code, i.description), '{}') FROM icd10_codes i WHERE i.code = ANY($3::text[])) AS icd10,
  (SELECT coalesce(json_object_agg(c.code, c.description), '{}') FROM procedure_codes c WHERE c.code = ANY($4::text[])) AS procedures`

interface ProviderDetails {
  npi: string
  full_name: string
  title: string | null
  cms_specialization: string
  address: string
  city: string
  state: string
  zip_code: string
  latitude: number
  longitude: number
  phone_number: string | null
  hco_npi: string | null
  hco_name: string | null
  hco_compile_level_1: string | null
  medical_school: string | null
  years_in_practice: number | null
  gender: string | null
  website: string | null
  aggregated_insurance_networks_v1: Record<string, boolean>
  confidence: number | string
  last_verified_at: string
  last_year_patient_count: number
  last_month_new_patient_count: number
}
interface FacilityDetails {
  id: number
  npi: string | null
  name: string
  address: string
  city: string
  state: string
  zip_code: string
  latitude: number
  longitude: number
  phone_number: string | null
  hco_compile_level_1: string
}

/**
 * Percentile rank (0-100) of each value among the values: the share of the others strictly below it
 * (percent_rank; ties share the lowest rank). One value alone: 100 when it is above zero, else 0.
 */
export function percentRanks(values: readonly number[]): number[] {
  return Array.from(percentRanksOf(Float64Array.from(values)))
}

/** Affordability percentile (0-100) of each price: the share of the other prices strictly above it (cheaper = higher). */
export function affordabilityPercentiles(prices: readonly number[]): number[] {
  return percentRanks(prices.map((price) => -price)).map((p, i, all) => (all.length === 1 ? 100 : p))
}

const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits
const clamp01 = (value: number) => Math.min(1, Math.max(0, value))

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
}

/**
 * The candidates of the search (every provider of the specialty within the radius, all of them scored) and,
 * when carriers are given, which are in network with any of them.
 */
export async function candidatesOf(
  pool: pg.Pool,
  search: ResolvedSearch,
): Promise<{ candidates: Candidates; inNetwork: Uint8Array | null }> {
  const index = await specialtyIndex(pool, search.version, search.omniCode)
  const candidates = findCandidates(index, { lat: search.latitude, lng: search.longitude }, search.radiusM)
  const n = candidates.members.length
  let inNetwork: Uint8Array | null = null
  if (search.insurers.length > 0) {
    inNetwork = new Uint8Array(n)
    for (let c = 0; c < n; c++) inNetwork[c] = inNetworkWithAny(index, candidates.members[c] as number, search.insurers) ? 1 : 0
  }
  return { candidates, inNetwork }
}

/** percentRanks over a typed array (the same ranks: the share of the others strictly below; one value alone: 100 when above zero). */
function percentRanksOf(values: Float64Array): Float64Array {
  const n = values.length
  const out = new Float64Array(n)
  if (n === 1) {
    out[0] = (values[0] as number) > 0 ? 100 : 0
    return out
  }
  const sorted = Float64Array.from(values).sort()
  for (let k = 0; k < n; k++) {
    const value = values[k] as number
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((sorted[mid] as number) < value) lo = mid + 1
      else hi = mid
    }
    out[k] = (100 * lo) / (n - 1)
  }
  return out
}

interface PriceEntry {
  c: number
  list: number
  negotiated: number
  insurer: number
  patient: number
  negotiatedAff: number
  patientAff: number
}

export async function rankProviders(pool: pg.Pool, search: ResolvedSearch): Promise<RankingsResponse> {
  const [{ candidates, inNetwork }, facilityIndex] = await Promise.all([candidatesOf(pool, search), facilityPoints(pool, search.version)])
  const index = candidates.index
  const centre = candidates.centre
  const n = candidates.members.length
  const members = candidates.members

  // Every candidate is scored (0022); the numbers are held in columns, rows are made only for what is listed.
  const distanceM = new Float64Array(n)
  const distance = new Float64Array(n)
  for (let c = 0; c < n; c++) {
    distanceM[c] = exactDistance(candidates, c)
    distance[c] = clamp01(1 - (distanceM[c] as number) / search.radiusM)
  }

  // Volumes from the index: the typical codes of the candidates, the given codes' counts (a code matches its
  // sub-codes: prefix-matched sums), the typical codes' counts.
  const codesSource: 'given' | 'typical' = search.cpt.length + search.icd10.length > 0 ? 'given' : 'typical'
  const typical = typicalCodesOf(index, members)
  const relevant: Record<Kind, string[]> = codesSource === 'given' ? { procedure: search.cpt, icd10: search.icd10 } : typical
  const priceCodes = search.cpt.length > 0 ? search.cpt : typical.procedure
  // columns of counts: per (kind, code), one per candidate
  const givenCols: { kind: Kind; code: string; counts: Float64Array }[] = [
    ...search.cpt.map((code) => ({ kind: 'procedure' as Kind, code, counts: new Float64Array(n) })),
    ...search.icd10.map((code) => ({ kind: 'icd10' as Kind, code, counts: new Float64Array(n) })),
  ]
  const topicalCols: { kind: Kind; code: string; counts: Float64Array }[] = [
    ...typical.procedure.map((code) => ({ kind: 'procedure' as Kind, code, counts: new Float64Array(n) })),
    ...typical.icd10.map((code) => ({ kind: 'icd10' as Kind, code, counts: new Float64Array(n) })),
  ]
  // per code id: the topical column it fills (exact code) and the given columns it adds to (prefix match)
  const topicalOf = new Map<number, Float64Array>()
  for (const col of topicalCols) {
    const id = index.codeId.get(`${col.kind}:${col.code}`)
    if (id !== undefined) topicalOf.set(id, col.counts)
  }
  const givenOf = new Map<number, Float64Array[]>()
  if (givenCols.length > 0) {
    const prefixes = givenCols.map((col) => `${col.kind}:${col.code}`)
    index.codes.forEach((key, id) => {
      const matches = givenCols.filter((_, k) => key.startsWith(prefixes[k] as string)).map((col) => col.counts)
      if (matches.length > 0) givenOf.set(id, matches)
    })
  }
  if (topicalOf.size + givenOf.size > 0) {
    for (let c = 0; c < n; c++) {
      const i = members[c] as number
      for (let r = index.volumeStart[i] as number; r < (index.volumeStart[i + 1] as number); r++) {
        const id = index.volumeCode[r] as number
        const topical = topicalOf.get(id)
        const given = givenOf.get(id)
        if (topical === undefined && given === undefined) continue
        const count = index.volumeCount[r] as number
        if (topical) topical[c] = count
        if (given) for (const col of given) col[c] = (col[c] as number) + count
      }
    }
  }
  const relevantCols = codesSource === 'given' ? givenCols : topicalCols

  // Per-code volume percentiles among the candidates (zero for those without the code), and the quality volume.
  const relevantVolume = new Float64Array(n)
  const codeRanks = relevantCols.map((col) => {
    for (let c = 0; c < n; c++) relevantVolume[c] = (relevantVolume[c] as number) + (col.counts[c] as number)
    return percentRanksOf(col.counts)
  })
  const qualityRanks = percentRanksOf(relevantVolume)
  const quality = new Float64Array(n)
  for (let c = 0; c < n; c++) quality[c] = (relevantVolume[c] as number) > 0 ? clamp01((qualityRanks[c] as number) / 100) : 0

  // Prices (from the index) and affordability per procedure among the candidates that billed it.
  const priceIds = new Map<number, number>()
  priceCodes.forEach((code, k) => {
    const id = index.priceCodeId.get(code)
    if (id !== undefined && !priceIds.has(id)) priceIds.set(id, k)
  })
  const buckets: PriceEntry[][] = priceCodes.map(() => [])
  if (priceIds.size > 0) {
    for (let c = 0; c < n; c++) {
      const i = members[c] as number
      for (let r = index.priceStart[i] as number; r < (index.priceStart[i + 1] as number); r++) {
        const k = priceIds.get(index.priceCode[r] as number)
        if (k === undefined) continue
        ;(buckets[k] as PriceEntry[]).push({
          c,
          list: index.priceList[r] as number,
          negotiated: index.priceNegotiated[r] as number,
          insurer: index.priceInsurer[r] as number,
          patient: index.pricePatient[r] as number,
          negotiatedAff: 0,
          patientAff: 0,
        })
      }
    }
  }
  const costSum = new Float64Array(n)
  const costParts = new Int32Array(n)
  const pricePeersMin = new Int32Array(n)
  const priceOf: Map<number, PriceEntry>[] = priceCodes.map(() => new Map())
  buckets.forEach((bucket, k) => {
    if (bucket.length === 0) return
    const negotiatedAff = affordabilityPercentiles(bucket.map((e) => e.negotiated))
    const patientAff = affordabilityPercentiles(bucket.map((e) => e.patient))
    bucket.forEach((entry, j) => {
      entry.negotiatedAff = negotiatedAff[j] as number
      entry.patientAff = patientAff[j] as number
      ;(priceOf[k] as Map<number, PriceEntry>).set(entry.c, entry)
      costSum[entry.c] = (costSum[entry.c] as number) + (entry.negotiatedAff + entry.patientAff) / 200
      costParts[entry.c] = (costParts[entry.c] as number) + 1
      const peers = pricePeersMin[entry.c] as number
      pricePeersMin[entry.c] = peers === 0 ? bucket.length : Math.min(peers, bucket.length)
    })
  })
  const cost = new Float64Array(n) // NaN: no price
  const final = new Float64Array(n)
  for (let c = 0; c < n; c++) {
    const parts = costParts[c] as number
    cost[c] = parts > 0 ? clamp01((costSum[c] as number) / parts) : Number.NaN
    const costOrHalf = parts > 0 ? (cost[c] as number) : 0.5
    final[c] = clamp01(
      CARE_SCORE_WEIGHTS.quality_of_care * (quality[c] as number) +
        CARE_SCORE_WEIGHTS.cost * costOrHalf +
        CARE_SCORE_WEIGHTS.distance * (distance[c] as number),
    )
  }
  const costOf = (c: number) => (Number.isNaN(cost[c] as number) ? null : (cost[c] as number))

  // Order: in network first (when carriers are given), then final_score, then distance, then NPI (stable).
  const npiOf = (c: number) => index.npi[members[c] as number] as string
  const ordered = Array.from({ length: n }, (_, c) => c).sort((a, b) => {
    const net = inNetwork ? (inNetwork[b] as number) - (inNetwork[a] as number) : 0
    if (net !== 0) return net
    const f = (final[b] as number) - (final[a] as number)
    if (f !== 0) return f
    const d = (distanceM[a] as number) - (distanceM[b] as number)
    if (d !== 0) return d
    const na = npiOf(a)
    const nb = npiOf(b)
    return na < nb ? -1 : na > nb ? 1 : 0
  })

  // Facilities: the affiliated facilities of all candidates that lie within the radius (the totals), scored from
  // their candidates.
  const facilityDistance = new Map<number, number | null>()
  const providerTypes: Record<string, number> = {}
  const kindCounts = new Int32Array(index.kinds.length)
  for (let c = 0; c < n; c++) {
    const i = members[c] as number
    kindCounts[index.kind[i] as number] = (kindCounts[index.kind[i] as number] as number) + 1
    const id = index.facility[i] as number
    if (id < 0 || facilityDistance.has(id)) continue
    const point = facilityIndex.get(id)
    facilityDistance.set(id, point ? facilityDistanceWithin(point, centre, search.radiusM) : null)
  }
  kindCounts.forEach((count, kind) => {
    if (count === 0) return
    const type = providerTypeOf(index.kinds[kind] as string)
    providerTypes[type] = (providerTypes[type] ?? 0) + count
  })
  const institutionTypes: Record<string, number> = {}
  let totalFacilities = 0
  for (const [id, d] of facilityDistance) {
    if (d === null) continue
    totalFacilities++
    const type = institutionTypeOf((facilityIndex.get(id) as FacilityPoint).type)
    institutionTypes[type] = (institutionTypes[type] ?? 0) + 1
  }
  const sums = new Map<number, { samples: number; quality: number; cost: number; costs: number }>()
  for (let c = 0; c < n; c++) {
    const id = index.facility[members[c] as number] as number
    if (id < 0 || (facilityDistance.get(id) ?? null) === null) continue
    let sum = sums.get(id)
    if (!sum) {
      sum = { samples: 0, quality: 0, cost: 0, costs: 0 }
      sums.set(id, sum)
    }
    sum.samples++
    sum.quality += quality[c] as number
    const co = costOf(c)
    if (co !== null) {
      sum.cost += co
      sum.costs++
    }
  }
  const facilityScores = [...sums.entries()].map(([id, sum]) => {
    const dM = facilityDistance.get(id) as number
    const q = sum.quality / sum.samples
    const co = sum.costs > 0 ? sum.cost / sum.costs : null
    const d = clamp01(1 - dM / search.radiusM)
    const f = clamp01(CARE_SCORE_WEIGHTS.quality_of_care * q + CARE_SCORE_WEIGHTS.cost * (co ?? 0.5) + CARE_SCORE_WEIGHTS.distance * d)
    return { id, distanceM: dM, quality: q, cost: co, distance: d, final: f, samples: sum.samples }
  })
  facilityScores.sort((a, b) => b.final - a.final || a.distanceM - b.distanceM || a.id - b.id)

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
    }
    for (const col of givenCols) if ((col.counts[c] as number) > 0) row.given[col.kind][col.code] = col.counts[c] as number
    for (const col of topicalCols) if ((col.counts[c] as number) > 0) row.topical[col.kind][col.code] = col.counts[c] as number
    relevantCols.forEach((col, k) => {
      const count = col.counts[c] as number
      if (count > 0)
        row.percentiles[col.kind].push({ code: col.code, count, percentile: round((codeRanks[k] as Float64Array)[c] as number, 2) })
    })
    priceCodes.forEach((code, k) => {
      const entry = (priceOf[k] as Map<number, PriceEntry>).get(c)
      if (!entry) return
      row.prices.list[code] = entry.list
      row.prices.negotiated[code] = entry.negotiated
      row.prices.insurer[code] = entry.insurer
      row.prices.patient[code] = entry.patient
      row.affordability.negotiated[code] = round(entry.negotiatedAff, 2)
      row.affordability.patient[code] = round(entry.patientAff, 2)
    })
    return row
  }

  // Details of what is listed (filter_npis narrows before the cut).
  const filter = search.filterNpis.length > 0 ? new Set(search.filterNpis) : null
  const hcpList = (filter ? ordered.filter((c) => filter.has(npiOf(c))) : ordered).slice(0, CARE_MAX_HCP_RESULTS).map(rowOf)
  const hcoCandidates = filter ? facilityScores : facilityScores.slice(0, CARE_MAX_HCO_RESULTS)
  const allCodes = {
    icd10: [...new Set([...relevant.icd10, ...typical.icd10, ...search.icd10])],
    procedure: [...new Set([...relevant.procedure, ...typical.procedure, ...search.cpt])],
  }
  const details = await pool.query<{
    providers: ProviderDetails[]
    facilities: FacilityDetails[]
    icd10: Record<string, string>
    procedures: Record<string, string>
  }>(DETAILS_SQL, [hcpList.map((r) => r.npi), hcoCandidates.map((f) => f.id), allCodes.icd10, allCodes.procedure])
  const detail = details.rows[0] as {
    providers: ProviderDetails[]
    facilities: FacilityDetails[]
    icd10: Record<string, string>
    procedures: Record<string, string>
  }
  const providerByNpi = new Map(detail.providers.map((p) => [p.npi, p]))
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
      total_hco_candidates: totalFacilities,
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
