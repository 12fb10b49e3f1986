import {
  PRICE_CHECK_MESSAGES,
  PROVIDER_PEER_RADIUS_M,
  PROVIDER_VISIT_TYPES,
  priceCheckAffordability,
  type HcoCost,
  type ListedPrice,
  type ProviderCostResponse,
  type VisitType,
} from '@citrus/contracts'
import type pg from 'pg'
import type { Row } from '../../db/kysely.js'
import { boundingBox, WHOLE_EARTH } from '../../lib/bounding-box.js'
import { notFound } from '../../lib/errors.js'
import { clinicianPayerRates, listedNegotiatedRates, payerRates, priceFacility, round2, type PricingReference } from './pricing.js'

/** Peers compared: the nearest providers of the same primary taxonomy within the metro radius. */
export const PROVIDER_MAX_PEERS = 200
/** A facility's peers: the nearest facilities of the same type within the metro radius (docs/decisions/0049). */
export const FACILITY_MAX_PEERS = 20

/**
 * What the page needs to know of its subject before the figures (SUBJECT_SQL): identity, and where its peers are
 * looked for. A facility's row fills the provider's columns from its own (name, type, address).
 */
type SubjectRow = Pick<
  Row<'providers'>,
  | 'npi'
  | 'full_name'
  | 'title'
  | 'cms_specialization'
  | 'primary_taxonomy_code'
  | 'address'
  | 'city'
  | 'state'
  | 'zip_code'
  | 'phone_number'
  | 'facility_id'
  | 'latitude'
  | 'longitude'
> & {
  kind: 'provider' | 'facility'
  facility_name: Row<'facilities'>['name'] | null
  facility_npi: Row<'facilities'>['npi']
  /** the facility's own id (kind facility) */
  self_id: Row<'facilities'>['id'] | null
  /** the peers' key: the provider's primary taxonomy or the facility's type */
  peer_group: string | null
}

/**
 * The subject of an NPI in one indexed statement: a provider's NPI first, else a facility's organisation NPI
 * (docs/decisions/0049); none = 404.
 */
const SUBJECT_SQL = `
  SELECT 'provider' AS kind, p.npi, p.full_name, p.title, p.cms_specialization, p.primary_taxonomy_code, p.address, p.city, p.state,
    p.zip_code, p.phone_number, p.facility_id, f.name AS facility_name, f.npi AS facility_npi, NULL::int AS self_id,
    p.primary_taxonomy_code::text AS peer_group, p.latitude, p.longitude
  FROM providers p LEFT JOIN facilities f ON f.id = p.facility_id WHERE p.npi = $1
  UNION ALL
  SELECT 'facility', f.npi, f.name, NULL::text, coalesce(f.hco_compile_level_1, f.facility_type), coalesce(f.taxonomy_code, ''),
    f.address_line_1, f.city, f.state, f.zip_code, f.phone_number, f.id, f.name, f.npi, f.id, f.facility_type, f.latitude, f.longitude
  FROM facilities f WHERE f.npi = $1 AND NOT EXISTS (SELECT 1 FROM providers WHERE npi = $1)`

/**
 * The peers: the nearest providers of the same primary taxonomy (or facilities of the same type) within the
 * metro radius. The box lets the (primary_taxonomy_code, latitude, longitude) index find the candidates
 * instead of every provider of the metro (docs/decisions/0051).
 */
async function peersOf(pool: pg.Pool, subject: SubjectRow): Promise<string[] | number[]> {
  if (subject.peer_group === null) return []
  if (subject.kind === 'provider') {
    const box = boundingBox(subject.latitude, subject.longitude, PROVIDER_PEER_RADIUS_M) ?? WHOLE_EARTH
    // The candidates in the box from mv_provider_points, stored by taxonomy and grid cell, so that a metro's
    // candidates share a few dozen pages (docs/decisions/0056); it is refreshed by every seed and NPPES import, so it
    // holds the providers as they are. The geography functions cost ~10-20 µs a call: a great-circle distance
    // computed from latitude and longitude keeps the candidates that can be among the nearest 200 (the sphere and
    // the spheroid differ by < 0.6 %, so a 2 % margin on the radius and on the 200th distance loses none), and only
    // those get their point (the providers' own GENERATED expression) and are measured and ordered on the spheroid
    // (ST_DWithin, ST_Distance), exactly as on the providers table.
    const { rows } = await pool.query<Pick<Row<'providers'>, 'npi'>>(
      `WITH me AS (SELECT geog FROM providers WHERE npi = $7),
       near AS MATERIALIZED (
         SELECT npi, latitude, longitude, sphere FROM (
           SELECT p.npi, p.latitude, p.longitude, 12742017.6 * asin(sqrt(
               power(sin(radians(p.latitude - $8) / 2), 2) + cos(radians($8)) * cos(radians(p.latitude)) * power(sin(radians(p.longitude - $9) / 2), 2)
             )) AS sphere
           FROM mv_provider_points p
           WHERE p.primary_taxonomy_code = $1 AND p.npi <> $7 AND p.latitude BETWEEN $3 AND $4 AND p.longitude BETWEEN $5 AND $6
         ) c WHERE sphere <= $2 * 1.02
       ),
       cut AS (SELECT sphere FROM near ORDER BY sphere OFFSET ${PROVIDER_MAX_PEERS - 1} LIMIT 1),
       kept AS MATERIALIZED (
         SELECT npi, (ST_SetSRID(ST_MakePoint(longitude, latitude), 4326))::geography AS geog FROM near
         WHERE sphere <= coalesce((SELECT sphere FROM cut) * 1.02, 'infinity'::float8)
       )
       SELECT k.npi FROM kept k, me
       WHERE ST_DWithin(k.geog, me.geog, $2)
       ORDER BY ST_Distance(k.geog, me.geog), k.npi LIMIT ${PROVIDER_MAX_PEERS}`,
      [subject.peer_group, PROVIDER_PEER_RADIUS_M, ...box, subject.npi, subject.latitude, subject.longitude],
    )
    return rows.map((r) => r.npi)
  }
  // facilities are few (52,100 at the full scale): the geography index finds them
  const { rows } = await pool.query<Pick<Row<'facilities'>, 'id'>>(
    `WITH me AS (SELECT geog FROM facilities WHERE id = $3)
     SELECT f.id FROM facilities f, me
     WHERE f.facility_type = $1 AND f.id <> $3 AND ST_DWithin(f.geog, me.geog, $2)
     ORDER BY ST_Distance(f.geog, me.geog), f.id LIMIT ${FACILITY_MAX_PEERS}`,
    [subject.peer_group, PROVIDER_PEER_RADIUS_M, subject.self_id],
  )
  return rows.map((r) => r.id)
}

/**
 * Each peer's mean negotiated amount of each of the codes (one row per peer and code it billed), of all
 * carriers or of one (case-insensitive). A provider's peers are read from mv_provider_prices, whose rows hold
 * per (npi, code) the sum and count of every line's negotiated amount, in all and per carrier, precomputed per
 * data version (docs/decisions/0056): 200 peers are a few hundred index probes into rows stored by NPI instead of
 * thousands of claims and lines read from the 2 GB tables. sum / count is the numeric division that avg() of the
 * lines ends with, so the means are exactly those of the claims. A facility's peers (20 facilities) are read
 * from their claims by the claims' facility index.
 */
async function peerMeans(
  pool: pg.Pool,
  facilityKind: boolean,
  peers: string[] | number[],
  codes: string[],
  payer: string | null,
): Promise<{ code: string; mean: number }[]> {
  if (facilityKind) {
    const { rows } = await pool.query<{ code: Row<'claim_procedures'>['procedure_code']; mean: number }>(
      `SELECT cp.procedure_code AS code, avg(cp.negotiated_amount)::float8 AS mean
       FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id AND cp.patient_id = c.patient_id
       WHERE c.facility_id = ANY($1::int[]) AND cp.procedure_code = ANY($2::text[])
         AND ($3::text IS NULL OR lower(c.insurer_name) = lower($3::text))
       GROUP BY c.facility_id, cp.procedure_code`,
      [peers, codes, payer],
    )
    return rows
  }
  // the peers' rows by NPI only (one index descent per peer, its rows side by side), then the codes: with both
  // arrays in the index condition, PostgreSQL 15 probes every (peer, code) pair, ten times the pages
  const { rows } =
    payer === null
      ? await pool.query<{ code: Row<'mv_provider_prices'>['procedure_code']; mean: number }>(
          `WITH m AS MATERIALIZED (
             SELECT procedure_code, sum_negotiated, all_line_count FROM mv_provider_prices WHERE npi = ANY($1::bpchar[])
           )
           SELECT procedure_code AS code, (sum_negotiated / all_line_count)::float8 AS mean FROM m WHERE procedure_code = ANY($2::text[])`,
          [peers, codes],
        )
      : await pool.query<{ code: Row<'mv_provider_prices'>['procedure_code']; mean: number }>(
          `WITH m AS MATERIALIZED (
             SELECT npi, procedure_code, carriers, carrier_sum_negotiated, carrier_line_count FROM mv_provider_prices WHERE npi = ANY($1::bpchar[])
           )
           SELECT m.procedure_code AS code, (sum(u.amount) / sum(u.lines))::float8 AS mean
           FROM m CROSS JOIN LATERAL unnest(m.carriers, m.carrier_sum_negotiated, m.carrier_line_count) AS u(carrier, amount, lines)
           WHERE m.procedure_code = ANY($2::text[]) AND lower(u.carrier) = lower($3::text)
           GROUP BY m.npi, m.procedure_code`,
          [peers, codes, payer],
        )
  return rows
}

/** What the cost page needs to show a listed price (docs/decisions/0075). */
export interface ListedPriceRequest {
  codes: string[]
  reference: PricingReference
  /** the Price Check search the page was opened from, and that search's facilities (Price Check's own answer) */
  search: { zip_code: string; radius_in_m: number; facilities: () => Promise<readonly HcoCost[]> } | null
}

/**
 * The listed price of the codes at the page's facility (a facility's own, a provider's affiliated one), computed by
 * Price Check's function (priceFacility), and Price Check's affordability of it among the search's facilities.
 */
async function listedPrice(
  pool: pg.Pool,
  subject: SubjectRow,
  payer: string | undefined,
  request: ListedPriceRequest,
): Promise<ListedPrice> {
  const [bundle, facilities] = await Promise.all([
    subject.facility_id === null ? null : priceFacility(pool, request.reference, subject.facility_id, request.codes, payer),
    request.search?.facilities() ?? null,
  ])
  const listed = bundle !== null && subject.facility_npi !== null && facilities?.some((f) => f.hco_npi === subject.facility_npi)
  return {
    procedure_codes: request.codes,
    payment_perspective: payer ?? null,
    facility_name: subject.facility_name,
    facility_npi: subject.facility_npi,
    cost_bundle: bundle,
    price_check:
      request.search && facilities
        ? {
            zip_code: request.search.zip_code,
            radius_in_m: request.search.radius_in_m,
            facility_count: facilities.length,
            affordability: listed
              ? priceCheckAffordability(
                  facilities.map((f) => f.cost_bundle.avg_patient_rate),
                  bundle.avg_patient_rate,
                )
              : null,
          }
        : null,
  }
}

/**
 * Provider cost transparency (docs/decisions/0029-provider-cost-transparency.md): from the provider's claim
 * lines (rendering_npi), optionally of one carrier, the per-claim cost range, the visit types (codes billed
 * most) with their mean list, negotiated, insurer and patient amounts, the facility's listed negotiated
 * rate of each code, and the affordability of each against the peers (same primary taxonomy within 50 km,
 * the nearest 200): the share of the peers who billed the code whose mean negotiated amount is at or above
 * this provider's, in whole percent.
 *
 * Three rounds of indexed statements (docs/decisions/0051): the subject; then its claims' range, its visit
 * types and its peers at once; then the peers' means of those codes only, read by the peers' keys from the
 * precomputed per-code sums (docs/decisions/0056).
 */
export async function providerCosts(
  pool: pg.Pool,
  npi: string,
  payer: string | undefined,
  listed: ListedPriceRequest | null = null,
): Promise<ProviderCostResponse> {
  const payerParam = payer ?? null
  const found = await pool.query<SubjectRow>(SUBJECT_SQL, [npi])
  const provider = found.rows[0]
  if (!provider) throw notFound(PRICE_CHECK_MESSAGES.providerNotFound(npi))
  // whose claims: the provider's (rendering_npi) or the facility's (facility_id); the arithmetic is the same
  const facilityKind = provider.kind === 'facility'
  const own = facilityKind ? 'c.facility_id = $1' : 'c.rendering_npi = $1'
  const ownKey = facilityKind ? provider.self_id : npi
  const payerFilter = (param: string) => `(${param}::text IS NULL OR lower(c.insurer_name) = lower(${param}::text))`
  const [ranges, visits, peers] = await Promise.all([
    pool.query<{
      n: number
      lo: number | null
      mid: number | null
      hi: number | null
      plo: number | null
      pmid: number | null
      phi: number | null
    }>(
      `SELECT count(*)::int AS n,
         percentile_cont(0.1) WITHIN GROUP (ORDER BY negotiated_amount)::float8 AS lo,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY negotiated_amount)::float8 AS mid,
         percentile_cont(0.9) WITHIN GROUP (ORDER BY negotiated_amount)::float8 AS hi,
         percentile_cont(0.1) WITHIN GROUP (ORDER BY patient_amount)::float8 AS plo,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY patient_amount)::float8 AS pmid,
         percentile_cont(0.9) WITHIN GROUP (ORDER BY patient_amount)::float8 AS phi
       FROM claims c WHERE ${own} AND ${payerFilter('$2')}`,
      [ownKey, payerParam],
    ),
    // The lines' means rounded to cents in numeric, as mv_provider_prices rounds Care Connect's per-unit means: a code
    // billed in single units has the same figure on both (docs/decisions/0075). Care Connect's own figures (unit_*) are
    // read from its source, mv_provider_prices, for a provider with all payers: the rows its candidate index reads.
    pool.query<{
      code: Row<'claim_procedures'>['procedure_code']
      description: Row<'procedure_codes'>['description'] | null
      claim_count: number
      list: string
      negotiated: string
      insurer: string
      patient: string
      // the code's row of mv_provider_prices (LEFT JOIN: NULL without one)
      unit_lines: Row<'mv_provider_prices'>['line_count'] | null
      unit_list: Row<'mv_provider_prices'>['avg_list_amount'] | null
      unit_negotiated: Row<'mv_provider_prices'>['avg_negotiated_amount'] | null
      unit_insurer: Row<'mv_provider_prices'>['avg_insurer_amount'] | null
      unit_patient: Row<'mv_provider_prices'>['avg_patient_amount'] | null
    }>(
      `WITH lines AS (
         SELECT cp.claim_id, cp.procedure_code, cp.list_amount, cp.negotiated_amount, cp.insurer_amount, cp.patient_amount
         FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id AND cp.patient_id = c.patient_id
         WHERE ${own} AND ${payerFilter('$2')}
       ), visit AS (
         SELECT procedure_code AS code, count(DISTINCT claim_id)::int AS claim_count, round(avg(list_amount), 2) AS list,
           round(avg(negotiated_amount), 2) AS negotiated, round(avg(insurer_amount), 2) AS insurer, round(avg(patient_amount), 2) AS patient
         FROM lines GROUP BY procedure_code
         ORDER BY claim_count DESC, procedure_code
         LIMIT ${PROVIDER_VISIT_TYPES}
       )
       SELECT v.*, pc.description, u.line_count AS unit_lines, u.avg_list_amount AS unit_list, u.avg_negotiated_amount AS unit_negotiated,
         u.avg_insurer_amount AS unit_insurer, u.avg_patient_amount AS unit_patient
       FROM visit v LEFT JOIN procedure_codes pc ON pc.code = v.code
         LEFT JOIN mv_provider_prices u ON u.npi = $3::bpchar AND u.procedure_code = v.code AND u.line_count > 0
       ORDER BY v.claim_count DESC, v.code`,
      [ownKey, payerParam, !facilityKind && payerParam === null ? npi : null],
    ),
    peersOf(pool, provider),
  ])

  // each peer's mean negotiated amount of each of the visit codes, those codes only; the facility's listed rates of
  // those codes and the listed price by Price Check's functions (pricing.ts), not by SQL of their own
  const codes = visits.rows.map((v) => v.code)
  const carrierCodes = !facilityKind && payer !== undefined ? (listed?.codes ?? []) : []
  const [means, facilityRates, listedPriceAnswer, ticRates, carrierRates] = await Promise.all([
    peers.length > 0 && codes.length > 0 ? peerMeans(pool, facilityKind, peers, codes, payerParam) : [],
    provider.facility_id !== null && codes.length > 0 ? listedNegotiatedRates(pool, provider.facility_id, codes, payer) : null,
    listed ? listedPrice(pool, provider, payer, listed) : null,
    // the payers' own files for this NPI (issue 37): the codes asked, else any
    payerRates(pool, provider.npi, listed?.codes ?? [], payer),
    // a clinician's carrier price of the codes asked, as Care Connect ranks it with that carrier (docs/decisions/0081)
    carrierCodes.length > 0 ? clinicianPayerRates(pool, provider.npi, carrierCodes, payer as string) : null,
  ])
  const peerRow = { peers: peers.length, means }
  const meansByCode = new Map<string, number[]>()
  for (const row of peerRow.means) {
    const list = meansByCode.get(row.code)
    if (list) list.push(row.mean)
    else meansByCode.set(row.code, [row.mean])
  }

  const visitTypes: VisitType[] = visits.rows.map((v) => {
    const means = meansByCode.get(v.code) ?? []
    // the same rounding on both sides, so that equal amounts compare equal
    const own = Number(v.negotiated)
    const atOrAbove = means.filter((m) => round2(m) >= own).length
    const facilityRate = facilityRates?.get(v.code) ?? null
    return {
      code: v.code,
      description: v.description ?? v.code,
      claim_count: v.claim_count,
      avg_list_rate: Number(v.list),
      avg_negotiated_rate: own,
      avg_insurer_rate: Number(v.insurer),
      avg_patient_rate: Number(v.patient),
      // numeric text to a double as Care Connect's index reads it (candidate-index.ts fillPrices)
      unit_price:
        v.unit_lines === null
          ? null
          : {
              line_count: v.unit_lines,
              list: Number(v.unit_list),
              negotiated: Number(v.unit_negotiated),
              insurer: Number(v.unit_insurer),
              patient: Number(v.unit_patient),
            },
      facility_negotiated_rate: facilityRate === null ? null : round2(facilityRate),
      peer_avg_negotiated_rate: means.length > 0 ? round2(means.reduce((s, m) => s + m, 0) / means.length) : null,
      peer_count: means.length,
      affordability: means.length > 0 ? Math.floor((100 * atOrAbove) / means.length) : null,
    }
  })
  const scored = visitTypes.filter((v) => v.affordability !== null)
  const weight = scored.reduce((s, v) => s + v.claim_count, 0)
  const affordability = weight > 0 ? Math.round(scored.reduce((s, v) => s + (v.affordability as number) * v.claim_count, 0) / weight) : null

  const r = ranges.rows[0]
  const range = (lo: number | null, mid: number | null, hi: number | null) =>
    lo === null || mid === null || hi === null ? null : { low: round2(lo), median: round2(mid), high: round2(hi) }
  const {
    kind,
    facility_id: _facility,
    self_id: _self,
    peer_group: _group,
    latitude: _latitude,
    longitude: _longitude,
    ...identity
  } = provider
  return {
    kind,
    provider: identity,
    claim_count: r?.n ?? 0,
    estimated_cost_range: r ? range(r.lo, r.mid, r.hi) : null,
    patient_cost_range: r ? range(r.plo, r.pmid, r.phi) : null,
    visit_types: visitTypes,
    affordability,
    peers: { count: peerRow.peers, radius_in_m: PROVIDER_PEER_RADIUS_M, specialty: provider.cms_specialization },
    payment_perspective: payerParam,
    listed_price: listedPriceAnswer,
    payer_rates: ticRates,
    ...(carrierRates ? { carrier_rate_by_procedure: Object.fromEntries(carrierRates) } : {}),
  }
}
