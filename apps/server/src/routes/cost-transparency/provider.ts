import {
  PRICE_CHECK_MESSAGES,
  PROVIDER_PEER_RADIUS_M,
  PROVIDER_VISIT_TYPES,
  type ProviderCostResponse,
  type VisitType,
} from '@citrus/contracts'
import type pg from 'pg'
import { notFound } from '../../lib/errors.js'
import { round2 } from './pricing.js'

/** Peers compared: the nearest providers of the same primary taxonomy within the metro radius. */
export const PROVIDER_MAX_PEERS = 200
/** A facility's peers: the nearest facilities of the same type within the metro radius (docs/decisions/0049). */
export const FACILITY_MAX_PEERS = 20

/**
 * Whose claims a page shows: a provider's (claims.rendering_npi) or, for an organisation NPI of a facility,
 * the facility's (claims.facility_id; docs/decisions/0049). The SQL fragments differ, the arithmetic does not.
 */
interface Subject {
  kind: 'provider' | 'facility'
  /** SQL over the NPI ($1) */
  claims: (alias: string) => string
  identity: string
  peers: string
  peerKey: (alias: string) => string
  facilityId: string
}

const PROVIDER_SUBJECT: Subject = {
  kind: 'provider',
  claims: (c) => `${c}.rendering_npi = $1`,
  identity: `SELECT p.npi, p.full_name, p.title, p.cms_specialization, p.primary_taxonomy_code, p.address, p.city, p.state, p.zip_code, p.phone_number,
         p.facility_id, f.name AS facility_name, f.npi AS facility_npi
       FROM providers p LEFT JOIN facilities f ON f.id = p.facility_id WHERE p.npi = $1`,
  peers: `WITH me AS (SELECT geog, primary_taxonomy_code FROM providers WHERE npi = $1)
         SELECT p.npi AS key FROM providers p, me
         WHERE p.primary_taxonomy_code = me.primary_taxonomy_code AND p.npi <> $1 AND ST_DWithin(p.geog, me.geog, $2)
         ORDER BY ST_Distance(p.geog, me.geog), p.npi LIMIT ${PROVIDER_MAX_PEERS}`,
  peerKey: (c) => `${c}.rendering_npi`,
  facilityId: '(SELECT facility_id FROM providers WHERE npi = $1)',
}

/** The facility of an organisation NPI ($1; facilities.npi is unique). */
const FACILITY_ID = '(SELECT id FROM facilities WHERE npi = $1)'

const FACILITY_SUBJECT: Subject = {
  kind: 'facility',
  claims: (c) => `${c}.facility_id = ${FACILITY_ID}`,
  identity: `SELECT f.npi, f.name AS full_name, NULL::text AS title, coalesce(f.hco_compile_level_1, f.facility_type) AS cms_specialization,
         coalesce(f.taxonomy_code, '') AS primary_taxonomy_code, f.address_line_1 AS address, f.city, f.state, f.zip_code, f.phone_number,
         f.id AS facility_id, f.name AS facility_name, f.npi AS facility_npi
       FROM facilities f WHERE f.npi = $1`,
  peers: `WITH me AS (SELECT id, geog, facility_type FROM facilities WHERE npi = $1)
         SELECT f.id AS key FROM facilities f, me
         WHERE f.facility_type = me.facility_type AND f.id <> me.id AND ST_DWithin(f.geog, me.geog, $2)
         ORDER BY ST_Distance(f.geog, me.geog), f.id LIMIT ${FACILITY_MAX_PEERS}`,
  peerKey: (c) => `${c}.facility_id`,
  facilityId: FACILITY_ID,
}

/** A provider's NPI, else a facility's organisation NPI; 404 otherwise. */
async function subjectOf(pool: pg.Pool, npi: string): Promise<Subject> {
  const { rows } = await pool.query<{ provider: boolean; facility: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM providers WHERE npi = $1) AS provider, EXISTS (SELECT 1 FROM facilities WHERE npi = $1) AS facility`,
    [npi],
  )
  if (rows[0]?.provider) return PROVIDER_SUBJECT
  if (rows[0]?.facility) return FACILITY_SUBJECT
  throw notFound(PRICE_CHECK_MESSAGES.providerNotFound(npi))
}

/**
 * Provider cost transparency (docs/decisions/0029-provider-cost-transparency.md): from the provider's claim
 * lines (rendering_npi), optionally of one carrier, the per-claim cost range, the visit types (codes billed
 * most) with their mean list, negotiated, insurer and patient amounts, the facility's listed negotiated
 * rate of each code, and the affordability of each against the peers (same primary taxonomy within 50 km,
 * the nearest 200): the share of the peers who billed the code whose mean negotiated amount is at or above
 * this provider's, in whole percent.
 */
export async function providerCosts(pool: pg.Pool, npi: string, payer: string | undefined): Promise<ProviderCostResponse> {
  const payerParam = payer ?? null
  const subject = await subjectOf(pool, npi)
  const [found, ranges, visits, peers] = await Promise.all([
    pool.query<{
      npi: string
      full_name: string
      title: string | null
      cms_specialization: string
      primary_taxonomy_code: string
      address: string
      city: string
      state: string
      zip_code: string
      phone_number: string | null
      facility_id: number | null
      facility_name: string | null
      facility_npi: string | null
    }>(subject.identity, [npi]),
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
       FROM claims c WHERE ${subject.claims('c')} AND ($2::text IS NULL OR lower(insurer_name) = lower($2::text))`,
      [npi, payerParam],
    ),
    pool.query<{
      code: string
      description: string | null
      claim_count: number
      list: number
      negotiated: number
      insurer: number
      patient: number
      facility_rate: number | null
    }>(
      `WITH lines AS (
         SELECT cp.claim_id, cp.procedure_code, cp.list_amount, cp.negotiated_amount, cp.insurer_amount, cp.patient_amount
         FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id
         WHERE ${subject.claims('c')} AND ($2::text IS NULL OR lower(c.insurer_name) = lower($2::text))
       ), visit AS (
         SELECT procedure_code AS code, count(DISTINCT claim_id)::int AS claim_count, avg(list_amount)::float8 AS list,
           avg(negotiated_amount)::float8 AS negotiated, avg(insurer_amount)::float8 AS insurer, avg(patient_amount)::float8 AS patient
         FROM lines GROUP BY procedure_code
         ORDER BY claim_count DESC, procedure_code
         LIMIT ${PROVIDER_VISIT_TYPES}
       )
       SELECT v.*, pc.description,
         (SELECT avg(coalesce(fp.negotiated_dollar, fp.median_amount, round(fp.negotiated_percentage / 100 * fp.gross_charge, 2)))::float8
          FROM facility_prices fp
          WHERE fp.facility_id = ${subject.facilityId} AND fp.procedure_code = v.code AND fp.payer_name <> ''
            AND ($2::text IS NULL OR lower(fp.payer_name) = lower($2::text))) AS facility_rate
       FROM visit v LEFT JOIN procedure_codes pc ON pc.code = v.code
       ORDER BY v.claim_count DESC, v.code`,
      [npi, payerParam],
    ),
    // the peers, and each peer's mean negotiated amount of each of the provider's visit codes, in one statement
    pool.query<{ peers: number; means: { code: string; mean: number }[] }>(
      `WITH codes AS (
         SELECT cp.procedure_code FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id
         WHERE ${subject.claims('c')} AND ($3::text IS NULL OR lower(c.insurer_name) = lower($3::text))
         GROUP BY cp.procedure_code ORDER BY count(DISTINCT c.id) DESC, cp.procedure_code LIMIT ${PROVIDER_VISIT_TYPES}
       ),
       peers AS (${subject.peers}),
       means AS (
         SELECT cp.procedure_code AS code, avg(cp.negotiated_amount)::float8 AS mean
         FROM claims c JOIN claim_procedures cp ON cp.claim_id = c.id
         WHERE ${subject.peerKey('c')} IN (SELECT key FROM peers) AND cp.procedure_code IN (SELECT procedure_code FROM codes)
           AND ($3::text IS NULL OR lower(c.insurer_name) = lower($3::text))
         GROUP BY ${subject.peerKey('c')}, cp.procedure_code
       )
       SELECT (SELECT count(*) FROM peers)::int AS peers, coalesce((SELECT json_agg(means) FROM means), '[]'::json) AS means`,
      [npi, PROVIDER_PEER_RADIUS_M, payerParam],
    ),
  ])

  const provider = found.rows[0]
  if (!provider) throw notFound(PRICE_CHECK_MESSAGES.providerNotFound(npi))
  const peerRow = peers.rows[0]
  const peerMeans = new Map<string, number[]>()
  for (const row of peerRow?.means ?? []) {
    const list = peerMeans.get(row.code)
    if (list) list.push(row.mean)
    else peerMeans.set(row.code, [row.mean])
  }

  const visitTypes: VisitType[] = visits.rows.map((v) => {
    const means = peerMeans.get(v.code) ?? []
    // the same rounding on both sides, so that equal amounts compare equal
    const own = round2(v.negotiated)
    const atOrAbove = means.filter((m) => round2(m) >= own).length
    return {
      code: v.code,
      description: v.description ?? v.code,
      claim_count: v.claim_count,
      avg_list_rate: round2(v.list),
      avg_negotiated_rate: own,
      avg_insurer_rate: round2(v.insurer),
      avg_patient_rate: round2(v.patient),
      facility_negotiated_rate: v.facility_rate === null ? null : round2(v.facility_rate),
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
  const { facility_id: _facility, ...identity } = provider
  return {
    kind: subject.kind,
    provider: identity,
    claim_count: r?.n ?? 0,
    estimated_cost_range: r ? range(r.lo, r.mid, r.hi) : null,
    patient_cost_range: r ? range(r.plo, r.pmid, r.phi) : null,
    visit_types: visitTypes,
    affordability,
    peers: { count: peerRow?.peers ?? 0, radius_in_m: PROVIDER_PEER_RADIUS_M, specialty: provider.cms_specialization },
    payment_perspective: payerParam,
  }
}
