import {
  BADGE_PRIORITY,
  NOVA_HIGH_OPPORTUNITY_THRESHOLD,
  NOVA_SORT_OPTIONS,
  type Badge,
  type Metric,
  type MetricGroup,
  type NovaSortKey,
  type SortDirection,
} from '@citrus/contracts'

/**
 * Nova's metrics from counted rows (docs/decisions/0038-nova-metrics-and-badges.md). The SQL layer only counts
 * (cases, vials used, vials bought, patients per window); every ratio, gap, score and badge is derived here,
 * the same way for a facility, a health system, a territory or a provider.
 */

/** Counts of one account over the 5-year window and the latest year. */
export interface NovaCounts {
  cases_5y: number
  cases_1y: number
  initials_5y: number
  initials_1y: number
  crofab_patients_5y: number
  crofab_patients_1y: number
  anavip_patients_5y: number
  anavip_patients_1y: number
  crofab_used_5y: number
  crofab_used_1y: number
  anavip_used_5y: number
  anavip_used_1y: number
  crofab_bought_5y: number
  crofab_bought_1y: number
  anavip_bought_5y: number
  anavip_bought_1y: number
}

export const COUNT_KEYS = [
  'cases_5y',
  'cases_1y',
  'initials_5y',
  'initials_1y',
  'crofab_patients_5y',
  'crofab_patients_1y',
  'anavip_patients_5y',
  'anavip_patients_1y',
  'crofab_used_5y',
  'crofab_used_1y',
  'anavip_used_5y',
  'anavip_used_1y',
  'crofab_bought_5y',
  'crofab_bought_1y',
  'anavip_bought_5y',
  'anavip_bought_1y',
] as const satisfies readonly (keyof NovaCounts)[]

export const emptyCounts = (): NovaCounts => Object.fromEntries(COUNT_KEYS.map((k) => [k, 0])) as unknown as NovaCounts

export function addCounts(into: NovaCounts, more: NovaCounts): NovaCounts {
  for (const key of COUNT_KEYS) into[key] += more[key]
  return into
}

export const sumCounts = (list: readonly NovaCounts[]) => list.reduce((acc, c) => addCounts(acc, c), emptyCounts())

/** Cases at which the demand part of the opportunity score is full: 25 envenomations in five years. */
export const OPPORTUNITY_FULL_DEMAND_CASES = 25
/** Gap score at or beyond which a badge is given (the ratio is 50 % or more). */
export const GAP_BADGE_SCORE = 5
/** Treated patients an account needs before share badges apply. */
export const SHARE_BADGE_MIN_PATIENTS = 3
export const CROFAB_LOYAL_SHARE = 0.8
/** National prescriber rank (by antivenom patients over five years) that earns TOP_PRESCRIBER. */
export const TOP_PRESCRIBER_RANK = 25

/**
 * Rounds half away from zero on the decimal value (as PostgreSQL's numeric round does): the float is first
 * read back at 12 significant digits, so 59.04999999999 (float noise for 59.05) rounds to 59.1.
 */
export function round(value: number, digits: number): number {
  if (value === 0 || !Number.isFinite(value)) return value
  const magnitude = Number(`${Math.round(Number(`${Math.abs(value).toPrecision(12)}e${digits}`))}e-${digits}`)
  return value < 0 ? -magnitude : magnitude
}

/** num / den, or null when there is no denominator. */
export const share = (num: number, den: number): number | null => (den > 0 ? round(num / den, 4) : null)

/**
 * The usage-buying gap ratio: (used - bought) / bought, capped at ±100 %. Buying nothing while using some is
 * +100 %; neither using nor buying has no gap (null).
 */
export function usageGapRatio(used: number, bought: number): number | null {
  if (used === 0 && bought === 0) return null
  if (bought === 0) return 1
  return round(Math.max(-1, Math.min(1, (used - bought) / bought)), 4)
}

/** The gap as a score from -10 (buys twice what it uses, or more) to 10 (uses twice what it buys, or buys none). */
export function usageGapScore(used: number, bought: number): number | null {
  const ratio = usageGapRatio(used, bought)
  return ratio === null ? null : round(ratio * 10, 1)
}

/**
 * serb_crofab_opportunity_score, 0-100: demand (envenomations, full at 25 in five years) times the share of
 * the antivenom the account uses that it does not already buy as CroFab:
 *   d = min(1, cases / 25);  h = 1 - min(1, crofab bought / max(antivenom used, 1));  score = 100 × d × (0.5 + 0.5 h)
 * No cases: 0. Cases and no CroFab bought: 100 × d. Buying all it uses as CroFab: 50 × d.
 */
export function opportunityScore(c: Pick<NovaCounts, 'cases_5y' | 'crofab_bought_5y' | 'crofab_used_5y' | 'anavip_used_5y'>): number {
  if (c.cases_5y <= 0) return 0
  const demand = Math.min(1, c.cases_5y / OPPORTUNITY_FULL_DEMAND_CASES)
  const used = c.crofab_used_5y + c.anavip_used_5y
  const headroom = 1 - Math.min(1, c.crofab_bought_5y / Math.max(used, 1))
  return round(100 * demand * (0.5 + 0.5 * headroom), 1)
}

/** Every derived value of an account, by metric code (the sort keys read these). */
export interface DerivedMetrics {
  serb_crofab_opportunity_score: number
  snake_envenomination_cases_5y: number
  snake_envenomination_cases_1yr: number
  snake_envenomination_initials_5y: number
  snake_envenomination_initials_1yr: number
  snake_envenomination_initials_per_usage: number | null
  antivenom_patients_5y: number
  crofab_patients_5y: number
  anavip_patients_5y: number
  crofab_units_used_5y: number
  crofab_units_used_1yr: number
  anavip_units_used: number
  anavip_units_used_1yr: number
  antivenom_units_used_5y: number
  crofab_patient_share_5y: number | null
  crofab_patient_share_1yr: number | null
  anavip_patient_share_5y: number | null
  anavip_patient_share_1yr: number | null
  crofab_units_sold_5y: number
  crofab_units_sold_1yr: number
  anavip_units_sold_5y: number
  anavip_units_sold_1yr: number
  crofab_usage_gap_ratio: number | null
  crofab_usage_buying_gap: number | null
  antivenom_usage_gap_ratio: number | null
  antivenom_usage_buying_gap: number | null
}

export function derive(c: NovaCounts): DerivedMetrics {
  const antivenomUsed5 = c.crofab_used_5y + c.anavip_used_5y
  const treated5 = c.crofab_patients_5y + c.anavip_patients_5y
  const treated1 = c.crofab_patients_1y + c.anavip_patients_1y
  return {
    serb_crofab_opportunity_score: opportunityScore(c),
    snake_envenomination_cases_5y: c.cases_5y,
    snake_envenomination_cases_1yr: c.cases_1y,
    snake_envenomination_initials_5y: c.initials_5y,
    snake_envenomination_initials_1yr: c.initials_1y,
    snake_envenomination_initials_per_usage: antivenomUsed5 > 0 ? round(c.initials_5y / antivenomUsed5, 3) : null,
    antivenom_patients_5y: treated5,
    crofab_patients_5y: c.crofab_patients_5y,
    anavip_patients_5y: c.anavip_patients_5y,
    crofab_units_used_5y: c.crofab_used_5y,
    crofab_units_used_1yr: c.crofab_used_1y,
    anavip_units_used: c.anavip_used_5y,
    anavip_units_used_1yr: c.anavip_used_1y,
    antivenom_units_used_5y: antivenomUsed5,
    crofab_patient_share_5y: share(c.crofab_patients_5y, treated5),
    crofab_patient_share_1yr: share(c.crofab_patients_1y, treated1),
    anavip_patient_share_5y: share(c.anavip_patients_5y, treated5),
    anavip_patient_share_1yr: share(c.anavip_patients_1y, treated1),
    crofab_units_sold_5y: c.crofab_bought_5y,
    crofab_units_sold_1yr: c.crofab_bought_1y,
    anavip_units_sold_5y: c.anavip_bought_5y,
    anavip_units_sold_1yr: c.anavip_bought_1y,
    crofab_usage_gap_ratio: usageGapRatio(c.crofab_used_5y, c.crofab_bought_5y),
    crofab_usage_buying_gap: usageGapScore(c.crofab_used_5y, c.crofab_bought_5y),
    antivenom_usage_gap_ratio: usageGapRatio(antivenomUsed5, c.crofab_bought_5y + c.anavip_bought_5y),
    antivenom_usage_buying_gap: usageGapScore(antivenomUsed5, c.crofab_bought_5y + c.anavip_bought_5y),
  }
}

type MetricDef = Omit<Metric, 'value'> & { group: MetricGroup; kind: 'INT' | 'FLOAT' }

const def = (
  group: MetricGroup,
  code: string,
  name: string,
  description: string,
  unit: Metric['unit'],
  value_format: Metric['value_format'],
  kind: 'INT' | 'FLOAT' = value_format === 'INTEGER' ? 'INT' : 'FLOAT',
  value_suffix?: string,
): MetricDef => ({ group, code, name, description, unit, value_format, kind, ...(value_suffix ? { value_suffix } : {}) })

/** The metric catalogue (metadata's metric groups and every insight's metrics), in display order. */
export const METRIC_DEFS: readonly MetricDef[] = [
  def(
    'PRIMARY',
    'serb_crofab_opportunity_score',
    'SERB CroFab Opportunity Score',
    'Envenomation demand versus CroFab bought versus antivenom used, 0-100',
    'STAT',
    'SCORE',
  ),
  def(
    'PRIMARY',
    'opportunity_score',
    'Opportunity Score',
    'The opportunity score of the use case (serb_crofab: the SERB CroFab opportunity score)',
    'STAT',
    'SCORE',
  ),
  def(
    'INCIDENCE',
    'snake_envenomination_cases_5y',
    'Snake Envenomations (5 yr)',
    'Venomous snakebite cases treated over 5 years',
    'PATIENT_CASES',
    'INTEGER',
  ),
  def(
    'INCIDENCE',
    'snake_envenomination_cases_1yr',
    'Snake Envenomations (1 yr)',
    'Venomous snakebite cases treated in the latest year',
    'PATIENT_CASES',
    'INTEGER',
  ),
  def(
    'INCIDENCE',
    'snake_envenomination_initials_5y',
    'Initial Envenomations (5 yr)',
    'Initial-encounter envenomation cases (ICD-10-CM 7th character A) over 5 years',
    'PATIENT_CASES',
    'INTEGER',
  ),
  def(
    'INCIDENCE',
    'snake_envenomination_initials_1yr',
    'Initial Envenomations (1 yr)',
    'Initial-encounter envenomation cases in the latest year',
    'PATIENT_CASES',
    'INTEGER',
  ),
  def(
    'INCIDENCE',
    'snake_envenomination_initials_per_usage',
    'Initial Envenomations per Vial',
    'Initial envenomations per antivenom vial used over 5 years',
    'RATIO',
    'DECIMAL',
  ),
  def(
    'DRUG_USAGE',
    'antivenom_patients_5y',
    'Antivenom Patients (5 yr)',
    'Cases treated with CroFab or Anavip over 5 years',
    'PATIENT_COUNT',
    'INTEGER',
  ),
  def('DRUG_USAGE', 'crofab_patients_5y', 'CroFab Patients (5 yr)', 'Cases treated with CroFab over 5 years', 'PATIENT_COUNT', 'INTEGER'),
  def('DRUG_USAGE', 'anavip_patients_5y', 'Anavip Patients (5 yr)', 'Cases treated with Anavip over 5 years', 'PATIENT_COUNT', 'INTEGER'),
  def('DRUG_USAGE', 'crofab_units_used_5y', 'CroFab Units Used (5 yr)', 'CroFab vials given over 5 years', 'UNITS', 'INTEGER'),
  def('DRUG_USAGE', 'crofab_units_used_1yr', 'CroFab Units Used (1 yr)', 'CroFab vials given in the latest year', 'UNITS', 'INTEGER'),
  def('DRUG_USAGE', 'anavip_units_used', 'Anavip Units Used (5 yr)', 'Anavip vials given over 5 years', 'UNITS', 'INTEGER'),
  def('DRUG_USAGE', 'anavip_units_used_1yr', 'Anavip Units Used (1 yr)', 'Anavip vials given in the latest year', 'UNITS', 'INTEGER'),
  def(
    'DRUG_USAGE',
    'antivenom_units_used_5y',
    'Antivenom Units Used (5 yr)',
    'CroFab and Anavip vials given over 5 years',
    'UNITS',
    'INTEGER',
  ),
  def(
    'COMPETITION',
    'crofab_patient_share_5y',
    'CroFab Patient Share (5 yr)',
    'Share of antivenom patients treated with CroFab over 5 years',
    'PERCENT',
    'PERCENTAGE',
  ),
  def(
    'COMPETITION',
    'crofab_patient_share_1yr',
    'CroFab Patient Share (1 yr)',
    'Share of antivenom patients treated with CroFab in the latest year',
    'PERCENT',
    'PERCENTAGE',
  ),
  def(
    'COMPETITION',
    'anavip_patient_share_5y',
    'Anavip Patient Share (5 yr)',
    'Share of antivenom patients treated with Anavip over 5 years',
    'PERCENT',
    'PERCENTAGE',
  ),
  def(
    'COMPETITION',
    'anavip_patient_share_1yr',
    'Anavip Patient Share (1 yr)',
    'Share of antivenom patients treated with Anavip in the latest year',
    'PERCENT',
    'PERCENTAGE',
  ),
  def('SALES', 'crofab_units_sold_5y', 'CroFab Units Bought (5 yr)', 'CroFab vials purchased over 5 years', 'UNITS', 'INTEGER'),
  def('SALES', 'crofab_units_sold_1yr', 'CroFab Units Bought (1 yr)', 'CroFab vials purchased in the latest year', 'UNITS', 'INTEGER'),
  def('SALES', 'anavip_units_sold_5y', 'Anavip Units Bought (5 yr)', 'Anavip vials purchased over 5 years', 'UNITS', 'INTEGER'),
  def('SALES', 'anavip_units_sold_1yr', 'Anavip Units Bought (1 yr)', 'Anavip vials purchased in the latest year', 'UNITS', 'INTEGER'),
  def(
    'SALES',
    'crofab_usage_gap_ratio',
    'CroFab Usage Gap',
    '(CroFab used - bought) / bought over 5 years, capped at ±100 %',
    'PERCENT',
    'PERCENTAGE',
  ),
  def(
    'SALES',
    'crofab_usage_buying_gap',
    'CroFab Usage-Buying Gap',
    'CroFab usage gap as a score from -10 (overbuying) to 10 (buying below usage)',
    'STAT',
    'SCORE',
  ),
  def(
    'SALES',
    'antivenom_usage_gap_ratio',
    'Antivenom Usage Gap',
    '(antivenom used - bought) / bought over 5 years, capped at ±100 %',
    'PERCENT',
    'PERCENTAGE',
  ),
  def(
    'SALES',
    'antivenom_usage_buying_gap',
    'Antivenom Usage-Buying Gap',
    'Antivenom usage gap as a score from -10 to 10',
    'STAT',
    'SCORE',
  ),
  def('NETWORK', 'health_system_count', 'Health Systems', 'Health systems with antivenom activity in the scope', 'STAT', 'INTEGER'),
  def('NETWORK', 'facility_count', 'Facilities', 'Facilities with envenomations or antivenom purchases in 5 years', 'STAT', 'INTEGER'),
  def('NETWORK', 'provider_count', 'Affiliated HCPs', 'Clinicians affiliated with the facilities', 'STAT', 'INTEGER'),
  def('NETWORK', 'treating_provider_count', 'Treating HCPs', 'Clinicians who treated an envenomation in 5 years', 'STAT', 'INTEGER'),
  def(
    'PATIENT_INSIGHTS',
    'last_year_patient_count',
    'Patients (last year)',
    'Distinct patients with a claim in the last 365 days of the claims',
    'PATIENT_COUNT',
    'INTEGER',
  ),
  def(
    'PATIENT_INSIGHTS',
    'last_month_new_patient_count',
    'New Patients (last month)',
    'Patients first seen in the last 30 days of the claims',
    'PATIENT_COUNT',
    'INTEGER',
  ),
  def(
    'PATIENT_INSIGHTS',
    'antivenom_patients_all_sites_5y',
    'Antivenom Patients, All Sites (5 yr)',
    'Distinct patients with a CroFab or Anavip fill written by the clinician, any facility, over 5 years',
    'PATIENT_COUNT',
    'INTEGER',
  ),
]

const DEF_BY_CODE = new Map(METRIC_DEFS.map((d) => [d.code, d]))

/** Metric values by code: derived metrics plus account-level extras (network counts, provider panel). */
export type MetricValues = Partial<Record<string, number | null>>

export function metricValues(d: DerivedMetrics, extras: MetricValues = {}): MetricValues {
  return { ...d, opportunity_score: d.serb_crofab_opportunity_score, ...extras }
}

/** The insight's metrics grouped by type; `codes` limits them (a provider has no sales or network metrics). */
export function groupMetrics(values: MetricValues, codes?: readonly string[]): Partial<Record<MetricGroup, Metric[]>> {
  const out: Partial<Record<MetricGroup, Metric[]>> = {}
  for (const d of METRIC_DEFS) {
    if (!(d.code in values)) continue
    if (codes && !codes.includes(d.code)) continue
    const v = values[d.code] ?? null
    const { group, kind, ...rest } = d
    ;(out[group] ??= []).push({ ...rest, value: { v, value_kind: kind } })
  }
  return out
}

export const metricDef = (code: string) => DEF_BY_CODE.get(code)

/** Metrics a provider (HCP) has at a facility. */
export const PROVIDER_METRIC_CODES = [
  'snake_envenomination_cases_5y',
  'snake_envenomination_cases_1yr',
  'snake_envenomination_initials_5y',
  'snake_envenomination_initials_1yr',
  'snake_envenomination_initials_per_usage',
  'antivenom_patients_5y',
  'crofab_patients_5y',
  'anavip_patients_5y',
  'crofab_units_used_5y',
  'crofab_units_used_1yr',
  'anavip_units_used',
  'anavip_units_used_1yr',
  'antivenom_units_used_5y',
  'crofab_patient_share_5y',
  'crofab_patient_share_1yr',
  'anavip_patient_share_5y',
  'anavip_patient_share_1yr',
  'last_year_patient_count',
  'last_month_new_patient_count',
  'antivenom_patients_all_sites_5y',
] as const

// ---------------------------------------------------------------- badges

export interface BadgeContext {
  kind: 'HEALTH_SYSTEM' | 'FACILITY' | 'PROVIDER' | 'REGION'
  /** the facility's health system, or the system's own name */
  healthSystemName?: string | null
  /** facilities of a health-system account */
  facilityCount?: number
  /** a national top prescriber treats here (accounts) or is this clinician (providers) */
  topPrescriber?: { rank: number } | null
}

/** Badges of docs/decisions/0038, in display priority (RISK, WARNING, SUCCESS, INFO, OPPORTUNITY, TOP_PRESCRIBER). */
export function badgesFor(d: DerivedMetrics, ctx: BadgeContext): Badge[] {
  const out: Badge[] = []
  const treated = d.antivenom_patients_5y
  if (ctx.kind !== 'PROVIDER') {
    if (d.anavip_patient_share_5y !== null && d.anavip_patient_share_5y > 0.5 && treated >= SHARE_BADGE_MIN_PATIENTS) {
      out.push({
        code: 'COMPETITOR_DOMINANT',
        type: 'RISK',
        label: 'Anavip Dominant',
        description: `Anavip treated ${pct(d.anavip_patient_share_5y)} of ${treated} antivenom patients over 5 years`,
      })
    }
    if (d.crofab_usage_buying_gap !== null && d.crofab_usage_buying_gap >= GAP_BADGE_SCORE) {
      out.push({
        code: 'BUYING_BELOW_USAGE',
        type: 'WARNING',
        label: 'Buying Below Usage',
        description: `Used ${d.crofab_units_used_5y} CroFab vials and bought ${d.crofab_units_sold_5y} over 5 years`,
      })
    }
    if (d.crofab_usage_buying_gap !== null && d.crofab_usage_buying_gap <= -GAP_BADGE_SCORE) {
      out.push({
        code: 'OVERSTOCKED',
        type: 'WARNING',
        label: 'CroFab Overstock',
        description: `Bought ${d.crofab_units_sold_5y} CroFab vials and used ${d.crofab_units_used_5y} over 5 years`,
      })
    }
    if (
      d.crofab_patient_share_5y !== null &&
      d.crofab_patient_share_5y >= CROFAB_LOYAL_SHARE &&
      treated >= SHARE_BADGE_MIN_PATIENTS &&
      d.crofab_usage_buying_gap !== null &&
      Math.abs(d.crofab_usage_buying_gap) < GAP_BADGE_SCORE
    ) {
      out.push({
        code: 'CROFAB_LOYAL',
        type: 'SUCCESS',
        label: 'CroFab Loyal',
        description: `CroFab treated ${pct(d.crofab_patient_share_5y)} of ${treated} antivenom patients and buying matches usage`,
      })
    }
    if (ctx.kind === 'FACILITY' && ctx.healthSystemName) {
      out.push({
        code: 'HPG_AFFILIATED',
        type: 'INFO',
        label: 'HPG Affiliated',
        description: `Buys through the ${ctx.healthSystemName} purchasing group`,
      })
    }
    if (ctx.kind === 'HEALTH_SYSTEM') {
      out.push({
        code: 'HPG_AFFILIATED',
        type: 'INFO',
        label: 'Purchasing Group',
        description: `Group purchasing for ${ctx.facilityCount ?? 0} ${ctx.facilityCount === 1 ? 'facility' : 'facilities'} with antivenom activity`,
      })
    }
    if (d.serb_crofab_opportunity_score >= NOVA_HIGH_OPPORTUNITY_THRESHOLD) {
      out.push({
        code: 'HIGH_OPPORTUNITY',
        type: 'OPPORTUNITY',
        label: 'High Opportunity',
        description: `SERB CroFab opportunity score ${d.serb_crofab_opportunity_score} (${NOVA_HIGH_OPPORTUNITY_THRESHOLD} or more)`,
      })
    }
  }
  if (ctx.topPrescriber) {
    out.push({
      code: 'TOP_PRESCRIBER',
      type: 'TOP_PRESCRIBER',
      label: 'Top Prescriber',
      description:
        ctx.kind === 'PROVIDER'
          ? `#${ctx.topPrescriber.rank} nationally by antivenom patients over 5 years`
          : `A top-${TOP_PRESCRIBER_RANK} national antivenom prescriber (#${ctx.topPrescriber.rank}) treats here`,
    })
  }
  return out.sort((a, b) => BADGE_PRIORITY.indexOf(a.type) - BADGE_PRIORITY.indexOf(b.type))
}

const pct = (v: number) => `${round(v * 100, 1)}%`

// ---------------------------------------------------------------- sorting

const SORT_METRIC = new Map<string, string>(NOVA_SORT_OPTIONS.map((o) => [o.code, o.metric]))

/**
 * Sorts by the key's metric (nulls last in either direction), then by name, then by id. `nameOrder` (the
 * position of each name in the collation order) replaces localeCompare for long lists.
 */
export function sortRows<T extends { values: MetricValues; name: string; id: string }>(
  rows: T[],
  key: NovaSortKey,
  direction: SortDirection,
  nameOrder?: ReadonlyMap<string, number>,
): T[] {
  const metric = SORT_METRIC.get(key) ?? 'snake_envenomination_cases_5y'
  const sign = direction === 'ASC' ? 1 : -1
  return rows.sort((a, b) => {
    const va = a.values[metric] ?? null
    const vb = b.values[metric] ?? null
    if (va !== vb) {
      if (va === null) return 1
      if (vb === null) return -1
      return sign * (va - vb)
    }
    const byName = nameOrder ? (nameOrder.get(a.name) ?? -1) - (nameOrder.get(b.name) ?? -1) : a.name.localeCompare(b.name)
    return byName || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  })
}
