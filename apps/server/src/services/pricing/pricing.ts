import {
  PRICE_CHECK_MAX_FACILITIES,
  PRICE_CHECK_MESSAGES,
  type CostBundle,
  type HcoCost,
  type PayerRate,
  type ProcedureCostResponse,
} from '@citrus/contracts'
import { ZERO_COST_SHARING_CODES } from '@citrus/data-kit'
import type pg from 'pg'
import { kyselyOf, type Row } from '../../db/kysely.js'
import { KM_PER_DEGREE } from '../../lib/bounding-box.js'
import { badRequest } from '../../lib/errors.js'

/**
 * Price Check arithmetic (docs/decisions/0028-price-check.md).
 *
 * Per facility within the radius and per requested code, from its price list rows (facility_prices):
 *  - list rate: the mean gross charge of the code's rows;
 *  - cash: the mean discounted cash price; the patient pays it all, the insurer share is null;
 *  - carrier: each of that payer's plan rows gives a negotiated rate (the dollar amount, else the v3
 *    median allowed amount, else the percentage of the gross charge), split by the plan's cost sharing
 *    (plan_cost_sharing: one or several weighted plan designs) into, once the deductible is met,
 *    patient = min(rate, copay + coinsurance × max(rate − copay, 0)) and insurer = rate − patient; the code's
 *    figures are the means over the plan rows. Preventive services (ACA §2713, Medicare) cost the patient $0.
 *    Before the deductible is met (docs/decisions/0048) the patient also pays, per design, the part of the
 *    amount above the copay that the deductible covers at 100 % instead of the coinsurance:
 *    (1 − coinsurance) × min(deductible, Σ codes max(rate − copay, 0)), the deductible counted once a bundle;
 *  - estimate statistics: the v3 median / 10th / 90th percentile allowed amounts the file reports for the
 *    perspective's rows (their mean), else the percentiles (continuous) of the rates it lists.
 * A facility is listed only when every code has a list rate and a price in the perspective; its bundle is the
 * sum over the codes. The average bundle is the mean of the listed facilities' bundles.
 */

export interface CostSharingRule {
  payer_name: string
  payer_kind: string
  plan_name: string
  /** one of several designs under the same match key ('' = the only one) */
  plan_design: string
  coinsurance: number
  copay: number
  deductible: number
  /** enrollment share among the designs of the match key (normalised when chosen) */
  weight: number
  /** 'default' (migration), 'synthetic' (seed), anything else: an operator's row */
  source: string
}

/** The fallback when the table holds no matching row (the migration inserts a catch-all row). */
const FALLBACK_RULE: CostSharingRule = {
  payer_name: '',
  payer_kind: '',
  plan_name: '',
  plan_design: '',
  coinsurance: 0.2,
  copay: 0,
  deductible: 0,
  weight: 1,
  source: 'default',
}

/** Services the patient pays nothing for under a carrier (ACA preventive services, Medicare wellness visits and screenings). */
export const ZERO_COST_SHARING: ReadonlySet<string> = ZERO_COST_SHARING_CODES

export interface PricingReference {
  rules: CostSharingRule[]
  /** lower-cased insurer name → insurers.kind */
  kinds: Map<string, string>
}

export async function loadPricingReference(pool: pg.Pool): Promise<PricingReference> {
  const db = kyselyOf(pool)
  const [rules, kinds] = await Promise.all([
    db
      .selectFrom('plan_cost_sharing')
      .select(['payer_name', 'payer_kind', 'plan_name', 'plan_design', 'coinsurance', 'copay', 'deductible', 'weight', 'source'])
      .orderBy('id')
      .execute(),
    db.selectFrom('insurers').select(['name', 'kind']).execute(),
  ])
  return {
    // numeric columns: text from the database
    rules: rules.map((r) => ({
      ...r,
      coinsurance: Number(r.coinsurance),
      copay: Number(r.copay),
      deductible: Number(r.deductible),
      weight: Number(r.weight),
    })),
    kinds: new Map(kinds.map((r) => [r.name.toLowerCase(), r.kind])),
  }
}

/**
 * How well a rule fits (docs/decisions/0048): the migration's defaults only when no other row matches; then
 * the most specific match key (payer name 4, plan name 2, payer kind 1); at the same key an operator's rows
 * before the seed's synthetic ones.
 */
export function ruleScore(rule: Pick<CostSharingRule, 'payer_name' | 'payer_kind' | 'plan_name' | 'source'>): number {
  const specificity = (rule.payer_name ? 4 : 0) + (rule.plan_name ? 2 : 0) + (rule.payer_kind ? 1 : 0)
  const known = rule.source !== 'default'
  const operator = known && rule.source !== 'synthetic'
  return (known ? 16 : 0) + specificity * 2 + (operator ? 1 : 0)
}

/**
 * The plan designs of a payer's plan: every row of the best-scoring match (ruleScore), with weights normalised
 * to sum to 1 (one row, or the generator's designs with their enrollment shares).
 */
export function costSharingFor(reference: PricingReference, payer: string, plan: string): CostSharingRule[] {
  const payerLower = payer.toLowerCase()
  const planLower = plan.toLowerCase()
  const kind = reference.kinds.get(payerLower) ?? ''
  let best: CostSharingRule[] = []
  let bestScore = -1
  for (const rule of reference.rules) {
    if (rule.payer_name !== '' && rule.payer_name.toLowerCase() !== payerLower) continue
    if (rule.plan_name !== '' && rule.plan_name.toLowerCase() !== planLower) continue
    if (rule.payer_kind !== '' && rule.payer_kind !== kind) continue
    const score = ruleScore(rule)
    if (score > bestScore) {
      best = [rule]
      bestScore = score
    } else if (score === bestScore) best.push(rule)
  }
  if (best.length === 0) return [FALLBACK_RULE]
  const total = best.reduce((sum, rule) => sum + rule.weight, 0)
  return best.map((rule) => ({ ...rule, weight: rule.weight / total }))
}

/** A design's identity within one response (weights may differ per plan row, the design does not). */
const designKey = (rule: CostSharingRule) =>
  `${rule.payer_name}\u0000${rule.payer_kind}\u0000${rule.plan_name}\u0000${rule.plan_design}\u0000${rule.source}`

/** A plan's designs (costSharingFor) and their keys (designKey). */
interface PlanDesigns {
  rules: CostSharingRule[]
  keys: string[]
}

const planDesignsByReference = new WeakMap<PricingReference, Map<string, PlanDesigns>>()

/**
 * costSharingFor, remembered per reference and (payer, plan) as spelled in the price list: a reference is loaded
 * once per data version and never changed, so the answer is the same every time (docs/decisions/0062).
 */
function planDesigns(reference: PricingReference, payer: string, plan: string): PlanDesigns {
  let known = planDesignsByReference.get(reference)
  if (!known) planDesignsByReference.set(reference, (known = new Map()))
  const key = `${payer}\u0000${plan}`
  let designs = known.get(key)
  if (!designs) {
    const rules = costSharingFor(reference, payer, plan)
    designs = { rules, keys: rules.map(designKey) }
    known.set(key, designs)
  }
  return designs
}

export const round2 = (value: number) => Math.round((value + Number.EPSILON) * 100) / 100

/** The patient's share of a negotiated rate under a rule once the deductible is met (rounded to cents). */
export function patientShare(rate: number, rule: Pick<CostSharingRule, 'coinsurance' | 'copay'>): number {
  return round2(Math.min(rate, rule.copay + rule.coinsurance * Math.max(rate - rule.copay, 0)))
}

/**
 * What a deductible not yet met adds to the patient's share of one rate under one design: the deductible
 * covers min(deductible, rate − copay) at 100 % instead of the coinsurance. Not rounded (summed per bundle).
 */
export function deductibleExtra(rate: number, rule: Pick<CostSharingRule, 'coinsurance' | 'copay' | 'deductible'>): number {
  return (1 - rule.coinsurance) * Math.min(rule.deductible, Math.max(rate - rule.copay, 0))
}

/** Continuous percentile (PostgreSQL percentile_cont) of sorted-or-not values. */
export function percentileCont(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const position = fraction * (sorted.length - 1)
  const lower = Math.floor(position)
  const upper = Math.ceil(position)
  const low = sorted[lower] as number
  const high = sorted[upper] as number
  return low + (high - low) * (position - lower)
}

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length
const isNumber = (value: number | null): value is number => value !== null

/**
 * One price list row as the pricing statement sends it (a JSON array, docs/decisions/0062): code, payer, plan,
 * gross charge, discounted cash, negotiated rate (dollar amount, else v3 median, else percentage × gross), the v3
 * median / 10th / 90th percentile allowed amounts, methodology. Amounts are JSON numbers written from the numeric
 * columns, which parse to the same doubles as their text.
 */
export type PriceRow = [
  code: string,
  payer: string,
  plan: string,
  gross: number | null,
  cash: number | null,
  negotiated: number | null,
  median: number | null,
  p10: number | null,
  p90: number | null,
  methodology: string | null,
]

/** Per plan design of a code: its mean deductible extra and its mean weight over the code's plan rows. */
interface DesignShare {
  extra: number
  weight: number
  /** the most the deductible can add to a bundle under this design: (1 − coinsurance) × deductible */
  cap: number
}

interface CodeFigures {
  list: number
  /** once the deductible is met */
  patient: number
  insurer: number | null
  negotiated: number | null
  median: number
  p10: number
  p90: number
  methodologies: string[]
  designs: Map<string, DesignShare>
}

function statistics(rows: readonly PriceRow[], rates: readonly number[]) {
  const medians = rows.map((r) => r[6]).filter(isNumber)
  const p10s = rows.map((r) => r[7]).filter(isNumber)
  const p90s = rows.map((r) => r[8]).filter(isNumber)
  return {
    median: medians.length > 0 ? mean(medians) : percentileCont(rates, 0.5),
    p10: p10s.length > 0 ? mean(p10s) : percentileCont(rates, 0.1),
    p90: p90s.length > 0 ? mean(p90s) : percentileCont(rates, 0.9),
  }
}

const methodologiesOf = (used: readonly PriceRow[]) => [...new Set(used.map((r) => r[9]).filter((m): m is string => !!m))]

/**
 * A code's plan rows with a negotiated rate: the payer's (case-insensitive), or every payer's when none is named
 * (the cost page's all-payers rate; Price Check names one or prices cash).
 */
function planRowsOf(rows: readonly PriceRow[], payer: string | undefined): PriceRow[] {
  const payerLower = payer?.toLowerCase()
  return rows.filter((r) => r[5] !== null && r[1] !== '' && (payerLower === undefined || r[1].toLowerCase() === payerLower))
}

/**
 * The listed negotiated rate of a code at a facility (docs/decisions/0075): the mean rate of its plan rows (planRowsOf),
 * null without any. Price Check's avg_negotiated_rate and the cost page's facility_negotiated_rate are this figure.
 */
export function listedNegotiatedRate(rows: readonly PriceRow[], payer: string | undefined): number | null {
  const planRows = planRowsOf(rows, payer)
  return planRows.length > 0 ? mean(planRows.map((r) => r[5] as number)) : null
}

/**
 * One code at one facility in the perspective; null when the facility does not price it so. `rows` are the code's
 * rows in the order of the price list's unique key (setting, payer, plan), which fixes the order of every sum.
 */
function codeFigures(rows: readonly PriceRow[], payer: string | undefined, reference: PricingReference): CodeFigures | null {
  const gross = rows.map((r) => r[3]).filter(isNumber)
  if (gross.length === 0) return null
  const list = mean(gross)
  if (payer === undefined) {
    const cashRows = rows.filter((r) => r[4] !== null)
    if (cashRows.length === 0) return null
    const cash = cashRows.map((r) => r[4] as number)
    // cash has no allowed-amount statistics: the percentiles of the cash prices listed
    return {
      list,
      patient: mean(cash),
      insurer: null,
      negotiated: null,
      median: percentileCont(cash, 0.5),
      p10: percentileCont(cash, 0.1),
      p90: percentileCont(cash, 0.9),
      methodologies: methodologiesOf(cashRows.filter((r) => r[1] === '')),
      designs: new Map(),
    }
  }
  const planRows = planRowsOf(rows, payer)
  if (planRows.length === 0) return null
  const code = planRows[0]?.[0] ?? ''
  const free = ZERO_COST_SHARING.has(code)
  const rates = planRows.map((r) => r[5] as number)
  const designs = new Map<string, DesignShare>()
  const patients = planRows.map((r, i) => {
    const rate = rates[i] as number
    if (free) return 0
    const { rules, keys } = planDesigns(reference, r[1], r[2])
    rules.forEach((rule, k) => {
      const key = keys[k] as string
      const share = designs.get(key) ?? { extra: 0, weight: 0, cap: (1 - rule.coinsurance) * rule.deductible }
      share.extra += (rule.weight * deductibleExtra(rate, rule)) / planRows.length
      share.weight += rule.weight / planRows.length
      designs.set(key, share)
    })
    return round2(
      rules.reduce((sum, rule) => sum + rule.weight * Math.min(rate, rule.copay + rule.coinsurance * Math.max(rate - rule.copay, 0)), 0),
    )
  })
  const insurers = rates.map((rate, i) => round2(rate - (patients[i] as number)))
  return {
    list,
    patient: mean(patients),
    insurer: mean(insurers),
    negotiated: listedNegotiatedRate(planRows, payer),
    ...statistics(planRows, rates),
    methodologies: methodologiesOf(planRows),
    designs,
  }
}

/**
 * What the deductible adds to a bundle when it is not met yet: per design, the codes' extras summed but at
 * most (1 − coinsurance) × deductible weighted by the design's share (the deductible is paid once).
 */
export function bundleDeductibleExtra(figures: readonly Pick<CodeFigures, 'designs'>[]): number {
  const totals = new Map<string, { extra: number; cap: number }>()
  for (const f of figures)
    for (const [key, share] of f.designs) {
      const total = totals.get(key) ?? { extra: 0, cap: 0 }
      total.extra += share.extra
      total.cap = Math.max(total.cap, share.cap * share.weight)
      totals.set(key, total)
    }
  let extra = 0
  for (const total of totals.values()) extra += Math.min(total.extra, total.cap)
  return extra
}

function sumBundle(figures: readonly CodeFigures[], cash: boolean): CostBundle {
  const sum = (pick: (f: CodeFigures) => number) => figures.reduce((total, f) => total + pick(f), 0)
  const total = (pick: (f: CodeFigures) => number) => round2(sum(pick))
  const methodologies = [...new Set(figures.flatMap((f) => f.methodologies))].sort()
  const extra = cash ? 0 : bundleDeductibleExtra(figures)
  const patientMet = sum((f) => f.patient)
  const insurerMet = sum((f) => f.insurer ?? 0)
  return {
    avg_list_rate: total((f) => f.list),
    avg_patient_rate: round2(patientMet + extra),
    avg_insurer_rate: cash ? null : round2(insurerMet - extra),
    avg_negotiated_rate: cash ? null : total((f) => f.negotiated ?? 0),
    median_amount: total((f) => f.median),
    p10_amount: total((f) => f.p10),
    p90_amount: total((f) => f.p90),
    methodology: methodologies.length > 0 ? methodologies.join('; ') : null,
    avg_patient_rate_deductible_met: cash ? null : round2(patientMet),
    avg_insurer_rate_deductible_met: cash ? null : round2(insurerMet),
  }
}

/** The mean of the facilities' bundles (null without facilities). */
export function averageBundle(bundles: readonly CostBundle[], cash: boolean): CostBundle | null {
  if (bundles.length === 0) return null
  const avg = (pick: (b: CostBundle) => number | null) => round2(mean(bundles.map((b) => pick(b) ?? 0)))
  return {
    avg_list_rate: avg((b) => b.avg_list_rate),
    avg_patient_rate: avg((b) => b.avg_patient_rate),
    avg_insurer_rate: cash ? null : avg((b) => b.avg_insurer_rate),
    avg_negotiated_rate: cash ? null : avg((b) => b.avg_negotiated_rate),
    median_amount: avg((b) => b.median_amount),
    p10_amount: avg((b) => b.p10_amount),
    p90_amount: avg((b) => b.p90_amount),
    methodology: null,
    avg_patient_rate_deductible_met: cash ? null : avg((b) => b.avg_patient_rate_deductible_met),
    avg_insurer_rate_deductible_met: cash ? null : avg((b) => b.avg_insurer_rate_deductible_met),
  }
}

export interface ProcedureCostInput {
  zip_code: string
  procedure_codes: string[]
  radius_in_m: number
  payment_perspective: string | undefined
}

/**
 * A facility's price list rows as PriceRow arrays (the alias fp, facilityPriceRows), in the order of the list's
 * unique key: the one row shape and order every priced figure is computed from (Price Check and the cost page,
 * docs/decisions/0075). Rows of a payer file (tic_rates) come after the price list's at equal keys, by id.
 */
export const PRICE_ROWS_JSON = `json_agg(json_build_array(fp.procedure_code, fp.payer_name, fp.plan_name, fp.gross_charge, fp.discounted_cash,
        fp.negotiated, fp.median_amount, fp.p10_amount, fp.p90_amount, fp.methodology)
        ORDER BY fp.procedure_code, fp.setting, fp.payer_name, fp.plan_name, fp.tie)`

/**
 * A payer-file rate still in force (the alias t): one whose expiration date is today or later (issue 37). An expired
 * rate is neither priced by Price Check nor listed on the cost page.
 */
export const TIC_CURRENT = 't.expiration_date >= current_date'

/**
 * The payer-file negotiated types priced in dollars: a percentage (of billed charges) or a per diem is a contract
 * term, not a price of the code, so it is listed on the cost page (payerRates) but not priced (issue 37).
 */
export const TIC_DOLLAR_TYPES = ['negotiated', 'derived', 'fee schedule'] as const

/**
 * A payer-file rate as a price row (the aliases t, tic_rates, and tf, tic_files): the columns of facilityPriceRows, no
 * gross or cash (those come from a price list), the rate as the negotiated amount, its type as the methodology.
 */
const TIC_PRICE_ROW = `t.billing_code AS procedure_code, t.setting, tf.payer_name, tf.plan_name, NULL::numeric AS gross_charge,
    NULL::numeric AS discounted_cash, t.negotiated_rate AS negotiated, NULL::numeric AS median_amount, NULL::numeric AS p10_amount,
    NULL::numeric AS p90_amount, 'payer file: ' || t.negotiated_type AS methodology, t.id AS tie`

/**
 * The payer-file rates priced (aliases t, tf): in force (TIC_CURRENT), in dollars (TIC_DOLLAR_TYPES), of a named payer
 * (filtered by `payerFilter(payerColumn)`), and of the provider's own billing class: a facility's are institutional
 * or both (not `professional`), a clinician's professional or both (not `institutional`).
 */
const ticPricedRates = (notBillingClass: 'professional' | 'institutional', payerFilter: (payerColumn: string) => string) =>
  `t.billing_class <> '${notBillingClass}' AND ${TIC_CURRENT} AND t.negotiated_type IN (${TIC_DOLLAR_TYPES.map((t) => `'${t}'`).join(', ')})
    AND tf.payer_name <> '' AND ${payerFilter('tf.payer_name')}`

/**
 * A facility's rows (the alias fp): its price list (facility_prices), and its payers' negotiated rates from their
 * Transparency-in-Coverage files (tic_rates by the facility's NPI; the facility's own rates, institutional or both,
 * in dollars; gross and cash come from the price list only), filtered by `payerFilter(payerColumn)`.
 */
const facilityPriceRows = (facilityId: string, codes: string, payerFilter: (payerColumn: string) => string) => `(
  SELECT fp.procedure_code, fp.setting, fp.payer_name, fp.plan_name, fp.gross_charge, fp.discounted_cash,
    coalesce(fp.negotiated_dollar, fp.median_amount, round(fp.negotiated_percentage / 100 * fp.gross_charge, 2)) AS negotiated,
    fp.median_amount, fp.p10_amount, fp.p90_amount, fp.methodology, 0::bigint AS tie
  FROM facility_prices fp WHERE fp.facility_id = ${facilityId} AND fp.procedure_code = ANY(${codes}) AND ${payerFilter('fp.payer_name')}
  UNION ALL
  SELECT ${TIC_PRICE_ROW}
  FROM facilities tfac JOIN tic_rates t ON t.npi = tfac.npi JOIN tic_files tf ON tf.id = t.file_id
  WHERE tfac.id = ${facilityId} AND t.billing_code = ANY(${codes}) AND ${ticPricedRates('professional', payerFilter)}
) fp`

/**
 * A clinician's rows (the alias fp, with the column npi): its payers' negotiated rates from their Transparency-in-Coverage
 * files by its NPI (tic_rates; professional or both, in dollars, in force), as price rows: clinicians have no price
 * list. `where` picks the NPIs and codes (alias t). Care Connect's candidate index reads a specialty's with it, the
 * cost page one NPI's (docs/decisions/0081).
 */
export const clinicianPriceRows = (where: string, payerFilter: (payerColumn: string) => string = () => 'true') => `(
  SELECT t.npi, ${TIC_PRICE_ROW}
  FROM tic_rates t JOIN tic_files tf ON tf.id = t.file_id
  WHERE ${where} AND ${ticPricedRates('institutional', payerFilter)}
) fp`

/**
 * Each code's negotiated rate of each payer in payer-file rows (clinicianPriceRows): code → lower-cased payer →
 * listedNegotiatedRate of the code's rows for that payer (the mean of its plan rows), rounded to cents as Price Check
 * shows a code's avg_negotiated_rate. The one implementation of a clinician's carrier price: Care Connect scores
 * with it (its candidate index runs it on the rows it reads) and the cost page shows it (docs/decisions/0081).
 */
export function payerFileRates(priceRows: readonly PriceRow[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>()
  for (const [code, rows] of rowsByCode(priceRows)) {
    const byPayer = new Map<string, number>()
    for (const row of rows) {
      const payer = row[1].toLowerCase()
      if (byPayer.has(payer)) continue
      const rate = listedNegotiatedRate(rows, row[1])
      if (rate !== null) byPayer.set(payer, round2(rate))
    }
    if (byPayer.size > 0) out.set(code, byPayer)
  }
  return out
}

/** The rows of a perspective: the cash row, and the carrier's rows when `payer` (a parameter) is not null. */
const perspectiveRows = (payer: string) => (column: string) =>
  `(${column} = '' OR (${payer}::text IS NOT NULL AND lower(${column}) = lower(${payer}::text)))`

/**
 * The input check and the prices in one statement (docs/decisions/0062): whether the ZIP has coordinates, the
 * codes neither in procedure_codes nor in any price list (in the asked order), and, only when both are fine, the
 * facilities within the radius that list the first code (the nearest 500, nearest first) with their rows of the
 * asked codes in the perspective (the cash row, and the carrier's rows when there is one), as JSON arrays: one
 * value per facility instead of one row per price, so the facility is sent once and the client parses one string.
 * A facility's rows are in the order of the price list's unique key (facility, code, setting, payer, plan).
 * The facilities that list the first code come from mv_price_code_points, by code in the radius's latitude/longitude
 * box (one range scan of its index, docs/decisions/0065); the spheroid ST_DWithin and ST_Distance decide on their
 * own points, so the facilities are the same as a search of the facilities table.
 */
const PRICE_SQL = `WITH origin AS (SELECT geog, latitude, longitude FROM zips WHERE zip = $1),
unknown AS (
  SELECT coalesce(array_agg(c ORDER BY ord), '{}') AS codes FROM unnest($2::text[]) WITH ORDINALITY AS u(c, ord)
  WHERE NOT EXISTS (SELECT 1 FROM procedure_codes p WHERE p.code = c)
    AND NOT EXISTS (SELECT 1 FROM facility_prices fp WHERE fp.procedure_code = c)
),
box AS (
  SELECT CASE WHEN b.whole THEN -90 ELSE b.lat - b.dlat END AS south, CASE WHEN b.whole THEN 90 ELSE b.lat + b.dlat END AS north,
    CASE WHEN b.whole THEN -180 ELSE b.lon - b.dlon END AS west, CASE WHEN b.whole THEN 180 ELSE b.lon + b.dlon END AS east
  FROM (SELECT a.lat, a.lon, a.dlat, a.dlon, (a.dlon IS NULL OR a.lon - a.dlon <= -180 OR a.lon + a.dlon >= 180) AS whole
        FROM (SELECT o.latitude AS lat, o.longitude AS lon, d.dlat,
                CASE WHEN abs(o.latitude) + d.dlat < 85 THEN d.dlat / cos(radians(abs(o.latitude) + d.dlat)) END AS dlon
              FROM origin o, (SELECT $3::float8 / 1000 / ${KM_PER_DEGREE} AS dlat) d) a) b
),
listing AS (
  SELECT f.id, f.name, f.npi, f.address_line_1, f.city, f.state, f.zip_code, f.phone_number, f.geog, o.geog AS origin
  FROM box b, origin o, mv_price_code_points c JOIN facilities f ON f.id = c.facility_id
  WHERE c.procedure_code = ($2::text[])[1]
    AND c.latitude BETWEEN b.south AND b.north AND c.longitude BETWEEN b.west AND b.east
  OFFSET 0
),
near AS (
  SELECT l.id, l.name, l.npi, l.address_line_1, l.city, l.state, l.zip_code, l.phone_number, ST_Distance(l.geog, l.origin) AS dist
  FROM listing l
  WHERE ST_DWithin(l.geog, l.origin, $3)
  ORDER BY dist, l.id
  LIMIT ${PRICE_CHECK_MAX_FACILITIES}
),
priced AS (
  SELECT n.id, n.dist, json_build_array(n.name, n.npi, n.address_line_1, n.city, n.state, n.zip_code, n.phone_number, n.dist,
    (SELECT ${PRICE_ROWS_JSON} FROM ${facilityPriceRows('n.id', '$2::text[]', perspectiveRows('$4'))})) AS facility
  FROM near n
)
SELECT EXISTS (SELECT 1 FROM origin) AS zip_known, u.codes AS unknown,
  CASE WHEN cardinality(u.codes) = 0 THEN (SELECT json_agg(p.facility ORDER BY p.dist, p.id) FROM priced p) END AS facilities
FROM unknown u`

/** A facility as the pricing statement sends it: name, NPI, address, city, state, ZIP, phone, distance, its rows. */
type FacilityRow = [
  name: string,
  npi: string | null,
  address: string,
  city: string,
  state: string,
  zip: string,
  phone: string | null,
  dist: number,
  rows: PriceRow[] | null,
]

/**
 * Prices a procedure near a ZIP (see the module comment); cost_by_hco nearest first. A 400 naming the field for a
 * ZIP without coordinates, else for codes nobody knows, as before the prices.
 */
export async function priceProcedure(
  pool: pg.Pool,
  reference: PricingReference,
  input: ProcedureCostInput,
): Promise<Omit<ProcedureCostResponse, 'cached'>> {
  const payer = input.payment_perspective
  // A named statement (docs/decisions/0065): parsed once per connection, and after five custom plans PostgreSQL keeps
  // the generic one, whose shape the inputs do not change (the view's index range, the facilities by id, their rows
  // by the unique key); planning cost 0.9-1.2 ms of the ~3.3 ms an answer took in PostgreSQL.
  const { rows } = await pool.query<{ zip_known: boolean; unknown: string[]; facilities: FacilityRow[] | null }>({
    name: 'price-check-procedure',
    text: PRICE_SQL,
    values: [input.zip_code, input.procedure_codes, input.radius_in_m, payer ?? null],
  })
  const row = rows[0]
  if (!row?.zip_known) {
    const message = PRICE_CHECK_MESSAGES.unknownZip(input.zip_code)
    throw badRequest(message, [{ path: 'query.zip_code', message }])
  }
  if (row.unknown.length > 0) {
    const message = PRICE_CHECK_MESSAGES.unknownCodes(row.unknown)
    throw badRequest(message, [{ path: 'query.procedure_codes_csv', message }])
  }
  const cash = payer === undefined
  const costByHco: HcoCost[] = []
  for (const [name, npi, address, city, state, zip, phone, dist, priceRows] of row.facilities ?? []) {
    const bundle = facilityBundle(priceRows ?? [], input.procedure_codes, payer, reference)
    if (!bundle) continue
    costByHco.push({
      hco_name: name,
      hco_npi: npi,
      hco_dist_in_m: Math.round(dist * 10) / 10,
      addr_line_1: address,
      city,
      state,
      zip_code: zip,
      phone_number: phone,
      cost_bundle: bundle,
    })
  }
  return {
    cost_by_hco: costByHco,
    avg_cost_bundle: averageBundle(
      costByHco.map((h) => h.cost_bundle),
      cash,
    ),
    payment_perspective: payer ?? null,
    procedure_codes: input.procedure_codes,
    radius_in_m: input.radius_in_m,
  }
}

/** A facility's rows by code, each code's rows in the statement's order. */
function rowsByCode(priceRows: readonly PriceRow[]): Map<string, PriceRow[]> {
  const byCode = new Map<string, PriceRow[]>()
  for (const priceRow of priceRows) {
    const list = byCode.get(priceRow[0])
    if (list) list.push(priceRow)
    else byCode.set(priceRow[0], [priceRow])
  }
  return byCode
}

/**
 * A facility's cost bundle of the codes in the perspective (payer, else cash) from its price list rows in that
 * perspective (see the module comment); null unless every code is priced so. The one implementation of a listed
 * price: Price Check's cards and the cost page's listed price are this function's answer (docs/decisions/0075).
 */
export function facilityBundle(
  priceRows: readonly PriceRow[],
  codes: readonly string[],
  payer: string | undefined,
  reference: PricingReference,
): CostBundle | null {
  const byCode = rowsByCode(priceRows)
  const figures: CodeFigures[] = []
  for (const code of codes) {
    const f = codeFigures(byCode.get(code) ?? [], payer, reference)
    if (!f) return null
    figures.push(f)
  }
  return figures.length > 0 ? sumBundle(figures, payer === undefined) : null
}

/** One facility's rows of the codes: the perspective's (Price Check's), or with $4 every payer's too. */
const FACILITY_ROWS_SQL = `SELECT ${PRICE_ROWS_JSON} AS rows
FROM ${facilityPriceRows('$1', '$2::text[]', (column) => `($4::boolean OR ${perspectiveRows('$3')(column)})`)}`

async function facilityRows(pool: pg.Pool, facilityId: number, codes: readonly string[], payer: string | undefined, everyPayer: boolean) {
  const { rows } = await pool.query<{ rows: PriceRow[] | null }>(FACILITY_ROWS_SQL, [facilityId, codes, payer ?? null, everyPayer])
  return rows[0]?.rows ?? []
}

/** The listed price of the codes at one facility in the perspective, as Price Check prices it (facilityBundle). */
export async function priceFacility(
  pool: pg.Pool,
  reference: PricingReference,
  facilityId: number,
  codes: readonly string[],
  payer: string | undefined,
): Promise<CostBundle | null> {
  return facilityBundle(await facilityRows(pool, facilityId, codes, payer, false), codes, payer, reference)
}

/** Each code's listed negotiated rate at one facility (listedNegotiatedRate): the carrier's, else every payer's. */
export async function listedNegotiatedRates(
  pool: pg.Pool,
  facilityId: number,
  codes: readonly string[],
  payer: string | undefined,
): Promise<Map<string, number | null>> {
  const byCode = rowsByCode(await facilityRows(pool, facilityId, codes, payer, payer === undefined))
  return new Map(codes.map((code) => [code, listedNegotiatedRate(byCode.get(code) ?? [], payer)]))
}

/** One clinician's payer-file rows of the codes (clinicianPriceRows), every payer's. */
const CLINICIAN_ROWS_SQL = `SELECT ${PRICE_ROWS_JSON} AS rows FROM ${clinicianPriceRows('t.npi = $1::bpchar AND t.billing_code = ANY($2::text[])')}`

/**
 * A clinician's carrier price of each code (payerFileRates of its payer-file rows): the code's rate of `payer`, absent
 * without one. The figure Care Connect scores a clinician's affordability with when the search names that carrier.
 */
export async function clinicianPayerRates(
  pool: pg.Pool,
  npi: string,
  codes: readonly string[],
  payer: string,
): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ rows: PriceRow[] | null }>(CLINICIAN_ROWS_SQL, [npi, codes])
  const out = new Map<string, number>()
  for (const [code, byPayer] of payerFileRates(rows[0]?.rows ?? [])) {
    const rate = byPayer.get(payer.toLowerCase())
    if (rate !== undefined) out.set(code, rate)
  }
  return out
}

/** A payer-file rate's unit (the contract's PayerRate.unit). */
export function payerRateUnit(type: string): PayerRate['unit'] {
  return type === 'percentage' ? 'percent' : type === 'per diem' ? 'usd_per_day' : 'usd'
}

export const PAYER_RATES_MAX = 200

/**
 * An NPI's negotiated rates from payers' Transparency-in-Coverage files (issue 37), as they are: every negotiated
 * type, percentages and per diems in their own unit; the codes asked (else any), the payer's (else every payer's).
 */
export async function payerRates(pool: pg.Pool, npi: string, codes: readonly string[], payer: string | undefined): Promise<PayerRate[]> {
  const { rows } = await pool.query<
    Pick<Row<'tic_files'>, 'payer_name' | 'plan_name'> &
      Pick<
        Row<'tic_rates'>,
        | 'billing_code_type'
        | 'billing_code'
        | 'name'
        | 'setting'
        | 'billing_class'
        | 'service_codes'
        | 'billing_code_modifiers'
        | 'additional_information'
        | 'tin'
      > &
      // text columns narrowed to the contract's values, the only ones the payer-file import writes
      Pick<PayerRate, 'negotiation_arrangement' | 'negotiated_type'> & {
        negotiated_rate: number
        expiration_date: string
        source_file: string
        last_updated_on: string
      }
  >(
    `SELECT tf.payer_name, tf.plan_name, t.billing_code_type, t.billing_code, t.name, t.negotiation_arrangement, t.negotiated_type,
       t.negotiated_rate::float8 AS negotiated_rate, t.setting, t.billing_class, t.service_codes, t.billing_code_modifiers, t.additional_information,
       to_char(t.expiration_date, 'YYYY-MM-DD') AS expiration_date, t.tin, regexp_replace(tf.source, '^.*/', '') AS source_file,
       to_char(tf.last_updated_on, 'YYYY-MM-DD') AS last_updated_on
     FROM tic_rates t JOIN tic_files tf ON tf.id = t.file_id
     WHERE t.npi = $1::bpchar AND ${TIC_CURRENT} AND (cardinality($2::text[]) = 0 OR t.billing_code = ANY($2::text[])) AND ($3::text IS NULL OR lower(tf.payer_name) = lower($3::text))
     ORDER BY t.billing_code, tf.payer_name, tf.plan_name, t.negotiated_type, t.id
     LIMIT ${PAYER_RATES_MAX}`,
    [npi, codes, payer ?? null],
  )
  return rows.map((r) => ({ ...r, unit: payerRateUnit(r.negotiated_type) }))
}
