import {
  PRICE_CHECK_MESSAGES,
  PRICE_CHECK_SORTS,
  affordabilityColor,
  priceCheckAffordability,
  priceCheckFormSchema,
  type HcoCost,
  type PriceCheckSort,
} from '@citrus/contracts'

export { PRICE_CHECK_MESSAGES, PRICE_CHECK_SORTS, affordabilityColor }
export { AFFORDABILITY_COLORS, affordabilityBarColor, formatCurrency, formatPatientRate } from '../../../lib/cost-format'
export type { PriceCheckSort }

/** Sort labels of the results (spec 3 §4.8). */
export const SORT_LABELS: Record<PriceCheckSort, string> = {
  patient_cost: 'Patient Cost',
  list_cost: 'List Price',
  distance: 'Distance',
}

/** Results page sizes; the page resets to the first when the size changes (spec 3 §4.8). */
export const RESULT_PAGE_SIZES = [5, 10, 25] as const
export const DEFAULT_RESULT_PAGE_SIZE = 10

/** Price Check ZIP rule (spec 3 §5), the contract form schema's: five digits, optionally -NNNN; the error text otherwise. */
export function zipError(zip: string): string | null {
  return priceCheckFormSchema.shape.zip.safeParse(zip).error?.issues[0]?.message ?? null
}

/** A chosen procedure: a selection, or codes plus a name (spec 3 §5). */
export interface ChosenProcedure {
  name: string
  cpt_codes: string[]
  description?: string
}
/** 'Please select a procedure' unless a procedure with a name and codes is chosen (the contract form schema's rule). */
export function procedureError(procedure: ChosenProcedure | null): string | null {
  return priceCheckFormSchema.shape.procedure.safeParse(procedure).error?.issues[0]?.message ?? null
}

const usd0 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 0, maximumFractionDigits: 0 })

/** The cost bundle: whole dollars (spec 3 §9). */
export const formatWholeDollars = (value: number) => usd0.format(Math.round(value))
/** Patient rate over list rate, rounded, as a percentage (spec 3 §9); null without a list rate. */
export function percentOfList(patient: number, list: number): number | null {
  return list > 0 ? Math.round((patient / list) * 100) : null
}

const METERS_PER_MILE = 1609.344
/** Distance: under 0.1 mile in feet, otherwise miles with 1 decimal (spec 3 §9). */
export function formatDistance(meters: number): string {
  const miles = meters / METERS_PER_MILE
  return miles < 0.1 ? `${Math.round(miles * 5280)} ft` : `${miles.toFixed(1)} mi`
}

/**
 * Affordability of a facility within the results, 0-100: the share of the listed facilities whose patient
 * cost is at or above this one's (100 = the cheapest).
 */
export function affordabilityScores(rows: readonly HcoCost[]): Map<HcoCost, number> {
  const costs = rows.map((r) => r.cost_bundle.avg_patient_rate)
  // the contracts' function: the cost page's listed price shows the same score (docs/decisions/0075)
  return new Map(rows.map((r) => [r, priceCheckAffordability(costs, r.cost_bundle.avg_patient_rate)]))
}

/**
 * A facility's cost page as Price Check links it: the carrier (insurance) and the search (procedure_codes_csv,
 * zip_code), so that the page shows the listed price of the same procedure with the same figures (0049, 0075).
 */
export function facilityCostPageUrl(npi: string, search: { insurance?: string | null; codes?: string; zip?: string }): string {
  const params = new URLSearchParams()
  if (search.insurance) params.set('insurance', search.insurance)
  if (search.codes) params.set('procedure_codes_csv', search.codes)
  if (search.codes && search.zip) params.set('zip_code', search.zip)
  const query = params.toString()
  return `/provider-cost-transparency/${npi}${query ? `?${query}` : ''}`
}

/** All sorts ascending; ties by distance then name (spec 3 §4.8). */
export function sortCosts(rows: readonly HcoCost[], sort: PriceCheckSort): HcoCost[] {
  const key = (r: HcoCost) =>
    sort === 'patient_cost' ? r.cost_bundle.avg_patient_rate : sort === 'list_cost' ? r.cost_bundle.avg_list_rate : r.hco_dist_in_m
  return [...rows].sort((a, b) => key(a) - key(b) || a.hco_dist_in_m - b.hco_dist_in_m || a.hco_name.localeCompare(b.hco_name))
}

export const isSort = (value: string | null): value is PriceCheckSort =>
  value !== null && (PRICE_CHECK_SORTS as readonly string[]).includes(value)

/** The results URL of a search (spec 3 §2.6): zip_code, insurance (optional), procedure_codes_csv. */
export function resultsUrl(search: { zip: string; insurance: string | null; procedure: ChosenProcedure }): string {
  const params = new URLSearchParams({ zip_code: search.zip.trim() })
  if (search.insurance) params.set('insurance', search.insurance)
  params.set('procedure_codes_csv', search.procedure.cpt_codes.join(','))
  return `/price-check/results?${params.toString()}`
}

/** The form's address-bar query (spec 3 §2.6): zip, insurance, codes, procedure. */
export function formQuery(search: { zip: string; insurance: string | null; procedure: ChosenProcedure | null }): URLSearchParams {
  const params = new URLSearchParams()
  if (search.zip) params.set('zip', search.zip)
  if (search.insurance) params.set('insurance', search.insurance)
  if (search.procedure) {
    params.set('codes', search.procedure.cpt_codes.join(','))
    params.set('procedure', search.procedure.name)
  }
  return params
}

/** Reads the form state back from the address bar. */
export function formFromQuery(params: URLSearchParams): { zip: string; insurance: string | null; procedure: ChosenProcedure | null } {
  const codes = (params.get('codes') ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
  const name = params.get('procedure') ?? ''
  return {
    zip: params.get('zip') ?? '',
    insurance: params.get('insurance') || null,
    procedure: codes.length > 0 && name ? { name, cpt_codes: codes } : null,
  }
}
