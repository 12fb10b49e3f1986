import { z } from 'zod'
import { defineEndpoint } from './endpoint.js'
import { booleanish } from './validation.js'

/**
 * Price Check (spec 3 §2.6, §3, §4.8, §7, §9; spec 4 §5) and provider cost transparency (spec 3 §2.7):
 * what a procedure costs at facilities near a ZIP, from a carrier's perspective or in cash, computed from the
 * facility price lists (CMS hospital price file v3 shape) and the claims of the data platform.
 * Method, cache and cost sharing: docs/decisions/0028-price-check.md; provider page: 0029.
 */

/** Price Check radius (spec 3 §9). */
export const PRICE_CHECK_DEFAULT_RADIUS_M = 50_000
/** The largest radius a caller may ask for (200 km). */
export const PRICE_CHECK_MAX_RADIUS_M = 200_000
/** At most this many codes make up one procedure. */
export const PRICE_CHECK_MAX_CODES = 20
/** At most this many facilities (the nearest) are priced per search. */
export const PRICE_CHECK_MAX_FACILITIES = 500
/** Type-ahead debounce and default suggestion count (spec 3 §9). */
export const PRICE_CHECK_TYPEAHEAD_DEBOUNCE_MS = 300
export const PRICE_CHECK_TYPEAHEAD_LIMIT = 10
/** Skeleton cards while loading (spec 3 §4.8). */
export const PRICE_CHECK_SKELETONS = 4
/** Sort keys of the results (all ascending; patient_cost first and default; spec 3 §4.8). */
export const PRICE_CHECK_SORTS = ['patient_cost', 'list_cost', 'distance'] as const
export type PriceCheckSort = (typeof PRICE_CHECK_SORTS)[number]
/** Affordability bar colours (spec 3 §9): above 80 green, above 60 amber, otherwise red. */
export function affordabilityColor(score: number): 'green' | 'amber' | 'red' {
  return score > 80 ? 'green' : score > 60 ? 'amber' : 'red'
}

/**
 * Price Check's affordability of one facility among a search's facilities (0-100): the share of the listed
 * facilities whose patient cost is at or above this one's, rounded (100 = the cheapest). One implementation for the
 * results page and the cost page's listed price (docs/decisions/0075).
 */
export function priceCheckAffordability(patientRates: readonly number[], rate: number): number {
  if (patientRates.length === 0) return 0
  return Math.round((100 * patientRates.filter((c) => c >= rate).length) / patientRates.length)
}

/** Price Check ZIP: five digits, optionally a hyphen and four digits (spec 3 §5). */
export const PRICE_CHECK_ZIP_PATTERN = /^\d{5}(-\d{4})?$/

/** A procedure code Price Check accepts: a CPT or HCPCS code, four to seven capitals or digits. */
export const PRICE_CHECK_CODE_PATTERN = /^[A-Z0-9]{4,7}$/

/** The texts of spec 3 §5 and §8 for Price Check and the provider cost page (pinned in test/messages-price.test.ts). */
export const PRICE_CHECK_MESSAGES = {
  invalidZip: 'Please enter a valid 5-digit ZIP code',
  procedureRequired: 'Please select a procedure',
  insurersFailed: 'Failed to load insurers',
  costFetchFailed: 'Failed to fetch cost data. Please try again later.',
  emptyTitle: 'No Healthcare Providers Found',
  tryNewSearch: 'Try New Search',
  removeInsuranceFilter: 'Remove Insurance Filter',
  free: 'FREE',
  insurancePays: 'Insurance Pays',
  beta: 'Beta',
  unknownCodes: (codes: readonly string[]) => `Unknown procedure code${codes.length === 1 ? '' : 's'}: ${codes.join(', ')}`,
  radiusPositive: 'radius_in_m must be a positive number of metres',
  radiusTooLarge: `radius_in_m must be at most ${PRICE_CHECK_MAX_RADIUS_M}`,
  codesRequired: 'procedure_codes_csv must name at least one procedure code',
  tooManyCodes: `procedure_codes_csv may name at most ${PRICE_CHECK_MAX_CODES} codes`,
  malformedCode: 'procedure_codes_csv must be CPT or HCPCS codes separated by commas',
  unknownZip: (zip: string) => `ZIP code ${zip} is not a known US ZIP code`,
  providerNotFound: (npi: string) => `No provider with NPI ${npi}`,
  invalidNpi: 'npi must be 10 digits',
} as const

/** The empty state's message naming the procedure, the ZIP and the insurance (spec 3 §2.6). */
export function priceCheckEmptyMessage(procedure: string, zip: string, insurance: string | null | undefined): string {
  const base = `We couldn't find any healthcare providers offering ${procedure} near ${zip}`
  return insurance ? `${base} that accept ${insurance}.` : `${base}.`
}

const zipCodeSchema = z
  .string()
  .trim()
  .regex(PRICE_CHECK_ZIP_PATTERN, PRICE_CHECK_MESSAGES.invalidZip)
  .transform((zip) => zip.slice(0, 5))
  .describe('ZIP code: 5 digits, optionally -NNNN')
const procedureCodesSchema = z
  .string()
  .transform((csv) =>
    csv
      .split(',')
      .map((code) => code.trim().toUpperCase())
      .filter((code) => code !== ''),
  )
  .pipe(
    z
      .array(z.string().regex(PRICE_CHECK_CODE_PATTERN, PRICE_CHECK_MESSAGES.malformedCode))
      .min(1, PRICE_CHECK_MESSAGES.codesRequired)
      .max(PRICE_CHECK_MAX_CODES, PRICE_CHECK_MESSAGES.tooManyCodes)
      .transform((codes) => [...new Set(codes)]),
  )
  .describe('the CPT/HCPCS codes that make up the procedure, comma-separated')
const radiusSchema = z.coerce
  .number()
  .positive(PRICE_CHECK_MESSAGES.radiusPositive)
  .max(PRICE_CHECK_MAX_RADIUS_M, PRICE_CHECK_MESSAGES.radiusTooLarge)

/**
 * The Price Check form (spec 3 §5): the ZIP of the procedure query ('Please enter a valid 5-digit ZIP code') and a
 * chosen procedure, a name with its codes ('Please select a procedure'); the results then ask with those codes.
 */
export const priceCheckFormSchema = z.object({
  zip: zipCodeSchema,
  procedure: z.custom<{ name: string; cpt_codes: string[] }>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { name?: unknown }).name === 'string' &&
      (value as { name: string }).name.trim() !== '' &&
      Array.isArray((value as { cpt_codes?: unknown }).cpt_codes) &&
      (value as { cpt_codes: unknown[] }).cpt_codes.length > 0,
    PRICE_CHECK_MESSAGES.procedureRequired,
  ),
})

export const procedureCostQuerySchema = z.object({
  zip_code: zipCodeSchema,
  procedure_codes_csv: procedureCodesSchema,
  radius_in_m: radiusSchema
    .default(PRICE_CHECK_DEFAULT_RADIUS_M)
    .describe(
      `search radius around the ZIP centroid in metres (default ${PRICE_CHECK_DEFAULT_RADIUS_M}, at most ${PRICE_CHECK_MAX_RADIUS_M})`,
    ),
  payment_perspective: z
    .string()
    .trim()
    .max(200)
    .optional()
    .transform((value) => (value ? value : undefined))
    .describe('an insurance carrier name (its negotiated rates, split by the plan cost sharing); absent = cash prices'),
  _bypass_cache: booleanish.default(false).describe('true: compute afresh instead of answering from the cache'),
})
export type ProcedureCostQuery = z.input<typeof procedureCostQuerySchema>

const money = z.number().describe('US dollars')

/** Cost bundle (spec 3 §3) with the CMS v3 estimate statistics and methodology (issue 12). */
export const costBundleSchema = z
  .object({
    avg_list_rate: money.describe('gross charge (list price) of the procedure'),
    avg_patient_rate: money.describe(
      'what the patient pays: their share of the negotiated rate before the yearly deductible is met (deductible, then coinsurance; preventive services $0), or the discounted cash price',
    ),
    avg_insurer_rate: money.nullable().describe("the carrier's share of the negotiated rate before the deductible is met; null in cash"),
    avg_negotiated_rate: money.nullable().describe("the carrier's negotiated rate (allowed amount); null in cash"),
    median_amount: money.nullable().describe('median of the estimate (CMS v3 median allowed amount, else of the listed rates)'),
    p10_amount: money.nullable().describe('10th percentile of the estimate'),
    p90_amount: money.nullable().describe('90th percentile of the estimate'),
    methodology: z
      .string()
      .nullable()
      .describe('the price file methodology (fee schedule, case rate, percent of total billed charges, ...)'),
    avg_patient_rate_deductible_met: money
      .nullable()
      .describe('what the patient pays once the yearly deductible is met (copay and coinsurance only; docs/decisions/0048); null in cash'),
    avg_insurer_rate_deductible_met: money.nullable().describe("the carrier's share once the deductible is met; null in cash"),
  })
  .meta({ id: 'CostBundle' })
export type CostBundle = z.infer<typeof costBundleSchema>

export const hcoCostSchema = z
  .object({
    hco_name: z.string(),
    hco_npi: z.string().nullable(),
    hco_dist_in_m: z.number().describe('distance from the ZIP centroid in metres'),
    addr_line_1: z.string(),
    city: z.string(),
    state: z.string(),
    zip_code: z.string(),
    phone_number: z.string().nullable(),
    cost_bundle: costBundleSchema,
  })
  .meta({ id: 'HcoCost' })
export type HcoCost = z.infer<typeof hcoCostSchema>

export const procedureCostResponseSchema = z
  .object({
    cost_by_hco: z.array(hcoCostSchema).describe('facilities within the radius that price every code, nearest first'),
    avg_cost_bundle: costBundleSchema.nullable().describe('the mean of the facilities’ bundles; null when none'),
    payment_perspective: z.string().nullable(),
    procedure_codes: z.array(z.string()),
    radius_in_m: z.number(),
    cached: z.boolean().describe('answered from the cache'),
  })
  .meta({ id: 'ProcedureCost' })
export type ProcedureCostResponse = z.infer<typeof procedureCostResponseSchema>

// ---- provider cost transparency (docs/decisions/0029) ---------------------------------------

export const providerCostParamsSchema = z.object({
  npi: z
    .string()
    .regex(/^\d{10}$/, PRICE_CHECK_MESSAGES.invalidNpi)
    .describe('the provider NPI'),
})
export const providerCostQuerySchema = z.object({
  payment_perspective: z
    .string()
    .trim()
    .max(200)
    .optional()
    .transform((value) => (value ? value : undefined))
    .describe(
      'restrict claims to one insurance carrier; with procedure_codes_csv also the listed price’s perspective (that carrier’s negotiated rates; absent = cash), as in Price Check',
    ),
  procedure_codes_csv: procedureCodesSchema
    .optional()
    .describe(
      'the codes of a Price Check procedure: the answer then carries listed_price, the facility’s price list priced for them as Price Check prices it (docs/decisions/0075)',
    ),
  zip_code: zipCodeSchema
    .optional()
    .describe(
      'with procedure_codes_csv: the Price Check search the facility was found in, for its affordability among that search’s facilities',
    ),
  radius_in_m: radiusSchema
    .optional()
    .describe(`with zip_code: the Price Check search radius in metres (default ${PRICE_CHECK_DEFAULT_RADIUS_M})`),
})
export type ProviderCostQuery = z.input<typeof providerCostQuerySchema>

const rangeSchema = z.object({ low: money, median: money, high: money })

/** Care Connect's per-unit prices of a provider's code (mv_provider_prices, all payers), as its features show them. */
export const unitPriceSchema = z
  .object({
    line_count: z.number().int().describe('claim lines with units > 0'),
    list: money,
    negotiated: money,
    insurer: money,
    patient: money,
  })
  .meta({ id: 'UnitPrice' })
export type UnitPrice = z.infer<typeof unitPriceSchema>

/** The cost page's listed price (docs/decisions/0075): the facility's price list priced as Price Check prices it. */
export const listedPriceSchema = z
  .object({
    procedure_codes: z.array(z.string()),
    payment_perspective: z.string().nullable().describe('the carrier whose negotiated rates are priced; null = cash'),
    facility_name: z.string().nullable(),
    facility_npi: z.string().nullable(),
    cost_bundle: costBundleSchema
      .nullable()
      .describe('the figures Price Check shows for this facility; null when its price list does not price every code so'),
    price_check: z
      .object({
        zip_code: z.string(),
        radius_in_m: z.number(),
        facility_count: z.number().int().describe('facilities that search lists'),
        affordability: z
          .number()
          .min(0)
          .max(100)
          .nullable()
          .describe('Price Check’s affordability of this facility among them (100 = the cheapest); null when the search does not list it'),
      })
      .nullable()
      .describe('the Price Check search (zip_code, radius_in_m) this page was opened from; null without zip_code'),
  })
  .meta({ id: 'ListedPrice' })
export type ListedPrice = z.infer<typeof listedPriceSchema>

export const visitTypeSchema = z
  .object({
    code: z.string(),
    description: z.string(),
    claim_count: z.number().int(),
    avg_list_rate: money.describe('mean list amount of the claim lines of the code'),
    avg_negotiated_rate: money.describe('mean negotiated (allowed) amount of its claim lines'),
    avg_insurer_rate: money.describe('mean insurer amount of its claim lines'),
    avg_patient_rate: money.describe('mean patient amount of its claim lines'),
    unit_price: unitPriceSchema
      .nullable()
      .describe(
        "Care Connect's per-unit prices of the code (lines with units > 0, all payers), the same figures its features show; null for a facility or with a carrier (with a carrier Care Connect prices a code by the carrier's payer-file rate when there is one: carrier_rate_by_procedure)",
      ),
    facility_negotiated_rate: money
      .nullable()
      .describe(
        "mean negotiated rate of the code in the price list of the provider's facility (the carrier's plan rows, else every payer's), as Price Check computes it",
      ),
    peer_avg_negotiated_rate: money.nullable().describe('mean negotiated rate of the same code among the peers'),
    peer_count: z.number().int().describe('peers who billed the code'),
    affordability: z
      .number()
      .min(0)
      .max(100)
      .nullable()
      .describe('share of peers whose mean negotiated rate is at or above this provider’s (100 = cheapest)'),
  })
  .meta({ id: 'VisitType' })
export type VisitType = z.infer<typeof visitTypeSchema>

/**
 * A payer's negotiated rate for this NPI from a Transparency-in-Coverage file (issue 37): `negotiated_rate` is in
 * `unit` (dollars, dollars per day, or a percentage, never converted into dollars).
 */
export const payerRateSchema = z
  .object({
    payer_name: z.string(),
    plan_name: z.string().describe("the file's plan(s); '' for a multi-plan file without a table of contents"),
    billing_code_type: z.string().describe('CPT, HCPCS, MS-DRG, RC, ... as the file says'),
    billing_code: z.string(),
    name: z.string(),
    negotiation_arrangement: z.enum(['ffs', 'bundle', 'capitation']),
    negotiated_type: z.enum(['negotiated', 'derived', 'fee schedule', 'percentage', 'per diem']),
    negotiated_rate: z.number(),
    unit: z.enum(['usd', 'usd_per_day', 'percent']).describe('percent: a percentage (e.g. of billed charges); usd_per_day: a per diem'),
    setting: z.string(),
    billing_class: z.string(),
    service_codes: z.array(z.string()),
    billing_code_modifiers: z.array(z.string()),
    additional_information: z.string().nullable(),
    expiration_date: z.string(),
    tin: z.string(),
    source_file: z.string().describe('the imported file'),
    last_updated_on: z.string().describe("the file's last_updated_on"),
  })
  .meta({ id: 'PayerRate' })
export type PayerRate = z.infer<typeof payerRateSchema>

export const providerCostResponseSchema = z
  .object({
    kind: z
      .enum(['provider', 'facility'])
      .describe(
        "whose claims: a provider's (rendering NPI) or, for a facility's organisation NPI, the facility's, with facilities of the same type as peers (docs/decisions/0049)",
      ),
    provider: z.object({
      npi: z.string(),
      full_name: z.string(),
      title: z.string().nullable(),
      cms_specialization: z.string(),
      primary_taxonomy_code: z.string(),
      address: z.string(),
      city: z.string(),
      state: z.string(),
      zip_code: z.string(),
      phone_number: z.string().nullable(),
      facility_name: z.string().nullable(),
      facility_npi: z.string().nullable(),
    }),
    claim_count: z.number().int(),
    estimated_cost_range: rangeSchema
      .nullable()
      .describe('10th percentile, median and 90th percentile of the negotiated amount per claim; null without claims'),
    patient_cost_range: rangeSchema.nullable().describe('the same for the patient share per claim'),
    visit_types: z.array(visitTypeSchema).describe('the codes the provider bills most, most billed first'),
    affordability: z.number().min(0).max(100).nullable().describe('claim-weighted mean of the visit types’ affordability'),
    peers: z.object({
      count: z.number().int().describe('providers of the same specialty in the same metro'),
      radius_in_m: z.number(),
      specialty: z.string(),
    }),
    payment_perspective: z.string().nullable(),
    listed_price: listedPriceSchema.nullable().describe('with procedure_codes_csv: the listed price of those codes; null otherwise'),
    payer_rates: z
      .array(payerRateSchema)
      .optional()
      .describe(
        "payers' negotiated rates for this NPI from their Transparency-in-Coverage files (data import tic): the procedure_codes_csv codes, else any (at most 200); with payment_perspective that payer's",
      ),
    carrier_rate_by_procedure: z
      .record(z.string(), money)
      .optional()
      .describe(
        "for a clinician, with payment_perspective and procedure_codes_csv: procedure code → that carrier's negotiated dollar rate for this NPI from its Transparency-in-Coverage files (the mean of its rates in force, professional or both; percentages and per diems are not dollar prices), rounded to the cent: the price Care Connect ranks this clinician's affordability with when a search names that carrier (docs/decisions/0081); codes without such a rate are absent",
      ),
  })
  .meta({ id: 'ProviderCost' })
export type ProviderCostResponse = z.infer<typeof providerCostResponseSchema>

export const shareProviderCostResponseSchema = z
  .object({
    id: z.string().describe('the shareable link id'),
    url: z.string().describe('the link: this page with a token'),
    expires_at: z.string(),
  })
  .meta({ id: 'ProviderCostShare' })
export type ShareProviderCostResponse = z.infer<typeof shareProviderCostResponseSchema>
/** Days a provider cost page link works. */
export const PROVIDER_SHARE_DAYS = 30

/** Peers: same primary taxonomy within this distance of the provider's practice (the "metro"). */
export const PROVIDER_PEER_RADIUS_M = 50_000
/** At most this many visit types on the provider page. */
export const PROVIDER_VISIT_TYPES = 12

const tags = ['cost-transparency'] as const
const security = ['bearer', 'shareToken'] as const

export const costTransparencyEndpoints = {
  procedure: defineEndpoint({
    method: 'GET',
    path: '/cost-transparency/procedure',
    summary: 'Price Check: what a procedure costs at facilities near a ZIP, with a carrier or in cash',
    description:
      'Facilities within radius_in_m of the ZIP centroid whose price list prices every code. With payment_perspective, that payer’s negotiated rates split into insurer and patient shares by the plan cost sharing (plan_cost_sharing: copay, deductible, coinsurance; preventive services $0): avg_patient_rate assumes the yearly deductible is not met yet, avg_patient_rate_deductible_met once it is; without, the discounted cash prices. Each bundle carries the CMS v3 estimate statistics and methodology. Cached (bounded, invalidated by any data load); _bypass_cache=true computes afresh. Metered against the company’s SEARCH policy when it has one.',
    tags,
    security,
    query: procedureCostQuerySchema,
    response: procedureCostResponseSchema,
    errors: [400, 401, 402, 403],
  }),
  provider: defineEndpoint({
    method: 'GET',
    path: '/cost-transparency/provider/{npi}',
    summary: 'Provider cost transparency: estimated cost range, visit types with codes and costs, affordability against peers',
    description:
      'From the provider’s claims and the price list of their facility. Peers are providers of the same primary taxonomy within 50 km. With procedure_codes_csv (and optionally the Price Check search’s zip_code and radius_in_m), listed_price: the facility’s price list priced for those codes in the perspective (payment_perspective, else cash) by the same function as Price Check, with Price Check’s affordability among that search’s facilities. Metered like Price Check.',
    tags,
    security,
    params: providerCostParamsSchema,
    query: providerCostQuerySchema,
    response: providerCostResponseSchema,
    errors: [400, 401, 402, 403, 404],
  }),
  shareProvider: defineEndpoint({
    method: 'POST',
    path: '/cost-transparency/provider/{npi}/share',
    summary: 'A public link to one provider cost page, limited to that page and its endpoint',
    description: `A public shareable link (${PROVIDER_SHARE_DAYS} days) whose client_routes are only /provider-cost-transparency/{npi} and whose api_endpoints are only GET /cost-transparency/provider/{npi} for this NPI. Members may create it (the scope is fixed by the server).`,
    tags,
    security: ['bearer'],
    params: providerCostParamsSchema,
    response: shareProviderCostResponseSchema,
    errors: [400, 401, 403, 404],
  }),
} as const
