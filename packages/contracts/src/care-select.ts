import { z } from 'zod'
import { booleanish, EMAIL_PATTERN, MESSAGES, normalizeUsPhone } from './validation.js'
import { defineEndpoint } from './endpoint.js'

/**
 * Care Connect / Care Select (spec 3 §1-§9, spec 4 §5): ranked clinicians (HCP) and facilities (HCO) near a
 * ZIP, the referral letter and the member link. The ranking method is docs/decisions/0022-care-select-ranking.md.
 */

/** A mile in metres (spec 3 §9); the default radius is 30 miles. */
export const METERS_PER_MILE = 1609.344
export const CARE_DEFAULT_RADIUS_MILES = 30
export const CARE_DEFAULT_RADIUS_M = Math.round(CARE_DEFAULT_RADIUS_MILES * METERS_PER_MILE)
/**
 * Bounds of the result cache of scored searches (docs/decisions/0060): entries, the MiB of columns they hold (a dense
 * metro's search: ~2.8 MiB), and minutes one lives at most.
 */
export const CARE_SCORE_CACHE_MAX_ENTRIES = 64
export const CARE_SCORE_CACHE_MAX_MIB = 256
export const CARE_SCORE_CACHE_TTL_MINUTES = 10
/** The largest radius a search may ask for (200 miles). */
export const CARE_MAX_RADIUS_M = 321_869
/** The most rankings one answer lists per kind (the best first; filter_npis is applied before the cut). */
export const CARE_MAX_HCP_RESULTS = 100
export const CARE_MAX_HCO_RESULTS = 50
export const CARE_MAX_CODES = 25
export const CARE_MAX_FILTER_NPIS = 200

/** Weights of final_score and the grade bands (docs/decisions/0022). */
export const CARE_SCORE_WEIGHTS = { quality_of_care: 0.5, cost: 0.3, distance: 0.2 } as const
/** A score at or above the band's floor gets its letter; below the last floor: D. */
export const CARE_GRADE_BANDS = [
  { grade: 'A', min: 0.75 },
  { grade: 'B', min: 0.5 },
  { grade: 'C', min: 0.25 },
] as const
export const CARE_GRADES = ['A', 'B', 'C', 'D', 'N/A'] as const

/**
 * Analytics events of the Care Connect screens (spec 3 §7: their payloads are not shown; ours are listed in
 * README "Care Connect"), stored by POST /analytics/events.
 */
export const CARE_ANALYTICS_EVENTS = {
  detailsToggled: 'provider_details_toggled',
  paginationChanged: 'pagination_changed',
  selectionCleared: 'selection_cleared',
  markerClicked: 'provider_map_marker_clicked',
} as const
export type CareGrade = (typeof CARE_GRADES)[number]
/** How many of the specialty's most frequent diagnosis and procedure codes stand in when none are given. */
export const CARE_TYPICAL_CODES_PER_KIND = 5
/** CONFIDENTLY_AFFORDABLE: a cost score at or above this, from prices compared with at least CARE_MIN_PRICE_PEERS candidates. */
export const CARE_AFFORDABLE_MIN_COST = 0.75
export const CARE_MIN_PRICE_PEERS = 3

export function gradeOf(score: number | null): CareGrade {
  if (score === null || Number.isNaN(score)) return 'N/A'
  for (const band of CARE_GRADE_BANDS) if (score >= band.min) return band.grade
  return 'D'
}

export const CARE_BADGES = ['ALL_PROCEDURES_MATCH', 'ALL_DIAGNOSIS_MATCH', 'CONFIDENTLY_AFFORDABLE', 'NEW_PATIENT_AVAILABLE'] as const
export type CareBadge = (typeof CARE_BADGES)[number]
/** Badge labels of spec 3 §3; any other value is shown lower-cased with underscores as spaces. */
export const CARE_BADGE_LABELS: Record<CareBadge, string> = {
  ALL_PROCEDURES_MATCH: 'Procedure Match',
  ALL_DIAGNOSIS_MATCH: 'Diagnosis Match',
  CONFIDENTLY_AFFORDABLE: 'Confidently Affordable',
  NEW_PATIENT_AVAILABLE: 'New Patients',
}
export function badgeLabel(badge: string): string {
  return (CARE_BADGE_LABELS as Record<string, string>)[badge] ?? badge.toLowerCase().replace(/_/g, ' ')
}

/** Provider type filter of spec 3 §3: label to enum. */
export const PROVIDER_TYPES = [
  { label: 'Nurse Practitioner', value: 'NP' },
  { label: 'Physician Assistant', value: 'PA' },
  { label: 'Medical Doctor / Osteopathic medicine', value: 'MD_OR_DO' },
  { label: 'Podiatrist', value: 'DPM' },
  { label: 'Dentist', value: 'DDS_OR_DMD' },
  { label: 'Optometrist', value: 'OD' },
  { label: 'Physical Therapist', value: 'PT' },
  { label: 'Counselor', value: 'COUNSELOR' },
  { label: 'Psychologist', value: 'PSYCHOLOGIST' },
  { label: 'Other', value: 'OTHER' },
] as const
export type ProviderType = (typeof PROVIDER_TYPES)[number]['value']
export const INSTITUTION_TYPES = [
  { label: 'Hospitals', value: 'HOSPITALS' },
  { label: 'Outpatient Center', value: 'OUTPATIENT CENTER' },
] as const
export type InstitutionType = (typeof INSTITUTION_TYPES)[number]['value']

const PROVIDER_KIND_TYPES: Record<string, ProviderType> = {
  nurse_practitioner: 'NP',
  physician_assistant: 'PA',
  physician: 'MD_OR_DO',
  podiatrist: 'DPM',
  dentist: 'DDS_OR_DMD',
  optometrist: 'OD',
  physical_therapist: 'PT',
  counselor: 'COUNSELOR',
  psychologist: 'PSYCHOLOGIST',
}
/** The filter type of a clinician from the directory's provider kind. */
export function providerTypeOf(providerKind: string): ProviderType {
  return PROVIDER_KIND_TYPES[providerKind] ?? 'OTHER'
}
/** Hospitals (general and critical access) versus every other facility. */
export function institutionTypeOf(hcoCompileLevel1: string): InstitutionType {
  return hcoCompileLevel1 === 'Hospital' ? 'HOSPITALS' : 'OUTPATIENT CENTER'
}

// ---- rankings request ----------------------------------------------------------------------------

export const CARE_MESSAGES = {
  zipUnknown: (zip: string) => `Unknown ZIP code ${zip}`,
  zipFormat: 'zip_code must be 5 digits',
  specialtyUnknown: (code: string) => `Unknown specialty (omni_code) ${code}`,
  genreUnknown: 'omni_genre must be SPECIALTY',
  insurerUnknown: (name: string) => `Unknown insurance carrier ${name}`,
  codeUnknown: (field: string, code: string) => `Unknown code ${code} in ${field}`,
  npiFormat: 'filter_npis must be a comma-separated list of 10-digit NPIs',
  radiusRange: `radius_in_m must be between 1 and ${CARE_MAX_RADIUS_M}`,
  tooManyCodes: `At most ${CARE_MAX_CODES} codes`,
} as const

/** A comma list in a query parameter: trimmed, empty items dropped, duplicates removed (order kept). */
const csv = (max: number, message = `At most ${max} items`) =>
  z
    .string()
    .max(8000)
    .optional()
    .transform((value) => [
      ...new Set(
        (value ?? '')
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      ),
    ])
    .refine((items) => items.length <= max, message)

export const rankingsQuerySchema = z.object({
  zip_code: z
    .string({ error: CARE_MESSAGES.zipFormat })
    .trim()
    .regex(/^\d{5}$/, CARE_MESSAGES.zipFormat)
    .describe("the patient's 5-digit ZIP; the search centre is its centroid"),
  omni_code: z
    .string({ error: 'omni_code is required' })
    .trim()
    .min(1, 'omni_code is required')
    .max(20)
    .describe('the specialty: a NUCC taxonomy code from GET /typeahead/omni'),
  omni_genre: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === undefined || value === '' ? 'SPECIALTY' : value.toUpperCase()))
    .refine((value) => value === 'SPECIALTY', CARE_MESSAGES.genreUnknown)
    .describe('SPECIALTY (the default)'),
  insurance_names_csv: csv(10).describe('insurance carriers (names of GET /insurers/); in-network providers rank first'),
  cpt_union_csv: csv(CARE_MAX_CODES, CARE_MESSAGES.tooManyCodes).describe('CPT/HCPCS codes of the requested procedures'),
  icd10_cm_union_csv: csv(CARE_MAX_CODES, CARE_MESSAGES.tooManyCodes).describe(
    'ICD-10-CM codes of the diagnoses; a category matches its sub-codes (E11 matches E11.9)',
  ),
  radius_in_m: z.coerce
    .number({ error: CARE_MESSAGES.radiusRange })
    .min(1, CARE_MESSAGES.radiusRange)
    .max(CARE_MAX_RADIUS_M, CARE_MESSAGES.radiusRange)
    .default(CARE_DEFAULT_RADIUS_M)
    .describe(`search radius in metres (default ${CARE_DEFAULT_RADIUS_M} = 30 miles)`),
  filter_npis: csv(CARE_MAX_FILTER_NPIS)
    .refine((items) => items.every((npi) => /^\d{10}$/.test(npi)), CARE_MESSAGES.npiFormat)
    .describe('narrow the answer to these NPIs (clinicians or facilities); scores stay those of the full search'),
  _bypass_cache: booleanish
    .optional()
    .default(false)
    .describe('true: score every candidate afresh instead of taking the scoring of the same search from the result cache'),
})
export type RankingsQuery = z.input<typeof rankingsQuerySchema>
export type ParsedRankingsQuery = z.output<typeof rankingsQuerySchema>

// ---- rankings response ---------------------------------------------------------------------------

const codeCounts = z.record(z.string(), z.number().int()).describe('code → claims of this provider carrying it')
const codePrices = z.record(z.string(), z.number()).describe('procedure code → average per-unit amount in dollars')
const codePercentiles = z.record(z.string(), z.number()).describe('procedure code → affordability percentile 0-100 (higher = cheaper)')

export const codePercentileSchema = z
  .object({
    code: z.string(),
    description: z.string().nullable(),
    count: z.number().int().describe("this provider's claims with the code"),
    percentile: z.number().min(0).max(100).describe('percentile of that volume among the candidates (0-100)'),
  })
  .meta({ id: 'CodePercentile' })

export const hcpFeaturesSchema = z
  .object({
    distance_in_miles: z.number(),
    given_diagnosis_counts: codeCounts,
    given_procedure_counts: codeCounts,
    topical_diagnosis_counts: codeCounts.describe("the specialty's most frequent diagnoses among the candidates → this provider's claims"),
    topical_procedure_counts: codeCounts.describe("the specialty's most frequent procedures among the candidates → this provider's claims"),
    top_procedure_percentiles: z.array(codePercentileSchema).describe('up to 10 relevant procedures, highest percentile first'),
    top_diagnosis_percentiles: z.array(codePercentileSchema).describe('up to 10 relevant diagnoses, highest percentile first'),
    avg_initial_price_by_procedure: codePrices.describe('list (charged) price'),
    avg_negotiated_price_by_procedure: codePrices,
    avg_insurer_price_by_procedure: codePrices,
    avg_patient_price_by_procedure: codePrices,
    negotiated_affordability_percentiles: codePercentiles,
    patient_affordability_percentiles: codePercentiles,
    price_source_by_procedure: z
      .record(z.string(), z.enum(['claims', 'payer_file']))
      .optional()
      .describe(
        "procedure code → where its price comes from: claims (per-unit means of the claim lines, all payers: every avg_*_price_by_procedure and both affordability percentiles) or payer_file (the search's one carrier's negotiated dollar rate from its Transparency-in-Coverage files, as the cost page's carrier_rate_by_procedure shows it: avg_negotiated_price_by_procedure and negotiated_affordability_percentiles only; docs/decisions/0081)",
      ),
    relevant_claim_count: z.number().int().describe('claims with any relevant code (the quality volume)'),
    last_year_patient_count: z.number().int(),
    last_month_new_patient_count: z.number().int(),
  })
  .meta({ id: 'HcpFeatures' })
export type HcpFeatures = z.infer<typeof hcpFeaturesSchema>

export const hcpEntitySchema = z
  .object({
    npi: z.string(),
    full_name: z.string(),
    title: z.string().nullable(),
    cms_specialization: z.string(),
    provider_type: z.enum(PROVIDER_TYPES.map((t) => t.value) as [ProviderType, ...ProviderType[]]),
    address: z.string(),
    city: z.string(),
    state: z.string(),
    zip_code: z.string(),
    latitude: z.number(),
    longitude: z.number(),
    phone_number: z.string().nullable(),
    hco_npi: z.string().nullable(),
    hco_name: z.string().nullable(),
    hco_compile_level_1: z.string().nullable(),
    medical_school: z.string().nullable(),
    years_in_practice: z.number().int().nullable(),
    gender: z.string().nullable(),
    website: z.string().nullable(),
    accepting_new_patients: z.boolean(),
    aggregated_insurance_networks_v1: z.record(z.string(), z.boolean()).describe('insurer → in network'),
    directory_confidence: z.number().min(0).max(1).describe("confidence in the directory record's contact details (0-1)"),
    last_verified_at: z.string().describe('date the directory record was last verified (YYYY-MM-DD)'),
  })
  .meta({ id: 'HcpEntity' })
export type HcpEntity = z.infer<typeof hcpEntitySchema>

const grade = z.enum(CARE_GRADES)

export const hcpRankingSchema = z
  .object({
    hcp_entity: hcpEntitySchema,
    final_score: z.number().min(0).max(1),
    final_grade: grade,
    in_network: z.boolean().nullable().describe('in network with any of the given carriers; null when no carrier was given'),
    task_scores: z.object({
      distance: z.number().min(0).max(1),
      distance_grade: grade,
      quality_of_care: z.number().min(0).max(1),
      quality_of_care_grade: grade,
      cost: z.number().min(0).max(1),
      cost_grade: grade,
    }),
    features: hcpFeaturesSchema,
    badges: z.array(z.enum(CARE_BADGES)),
  })
  .meta({ id: 'HcpRanking' })
export type HcpRanking = z.infer<typeof hcpRankingSchema>

export const hcoRankingSchema = z
  .object({
    hco_npi: z.string().nullable(),
    hco_id: z.number().int(),
    hco_name: z.string(),
    hco_address: z.string(),
    city: z.string(),
    state: z.string(),
    zip_code: z.string(),
    latitude: z.number(),
    longitude: z.number(),
    hco_phone_number: z.string().nullable(),
    hco_compile_level_1: z.string().describe('institution type'),
    institution_type: z.enum(['HOSPITALS', 'OUTPATIENT CENTER']),
    distance_in_miles: z.number(),
    final_score: z.number().min(0).max(1),
    final_grade: grade,
    num_hcp_samples: z.number().int().describe("candidate clinicians affiliated with the facility (its scores' sample)"),
    task_scores: z.object({
      distance: z.number().min(0).max(1),
      distance_grade: grade,
      quality_of_care: z.number().min(0).max(1),
      quality_of_care_grade: grade,
      cost: z.number().min(0).max(1),
      cost_grade: grade,
    }),
  })
  .meta({ id: 'HcoRanking' })
export type HcoRanking = z.infer<typeof hcoRankingSchema>

export const rankingsResponseSchema = z
  .object({
    search_lat: z.number(),
    search_long: z.number(),
    state: z.string(),
    city: z.string(),
    radius_in_m: z.number(),
    common_ranking_metadata: z.object({
      provider_types_to_counts: z.record(z.string(), z.number().int()).describe('provider type → candidates'),
      institution_types_to_counts: z.record(z.string(), z.number().int()),
      total_hcp_candidates: z.number().int(),
      total_hco_candidates: z.number().int(),
      diagnosis_code_descriptions: z.record(z.string(), z.string()),
      procedure_code_descriptions: z.record(z.string(), z.string()),
      taxonomy_code_descriptions: z.record(z.string(), z.string()),
      relevant_diagnosis_codes: z.array(z.string()).describe('the codes quality was measured on (given, else typical)'),
      relevant_procedure_codes: z.array(z.string()),
      codes_source: z.enum(['given', 'typical']),
      weights: z.object({ quality_of_care: z.number(), cost: z.number(), distance: z.number() }),
    }),
    hcp_rankings: z.array(hcpRankingSchema),
    hco_rankings: z.array(hcoRankingSchema),
  })
  .meta({ id: 'RankingsResponse' })
export type RankingsResponse = z.infer<typeof rankingsResponseSchema>

export const RANKING_METHOD_DESCRIPTION = `Ranks clinicians (hcp_rankings) and facilities (hco_rankings) for a patient ZIP and a specialty.

**Candidates**: clinicians whose primary taxonomy is omni_code and whose practice lies within radius_in_m of the ZIP's centroid (spheroid distance, as PostGIS ST_Distance on geography). common_ranking_metadata counts all of them (total_hcp_candidates, provider_types_to_counts) and the facilities within the radius they are affiliated with (total_hco_candidates, institution_types_to_counts).
**Every candidate is scored** (computed in process from an index of the specialty held per data version: locations, networks, code volumes and prices); percentiles are taken among all candidates.
**Relevant codes**: the given CPT and ICD-10-CM codes (a code matches its sub-codes); when none is given, the ${CARE_TYPICAL_CODES_PER_KIND} most frequent diagnoses and procedures of the candidates' claims.
**quality_of_care** (0-1): percentile rank among the candidates of the provider's claims carrying a relevant code; 0 without any.
**cost** (0-1): mean, over the relevant procedures the provider is priced for, of the affordability percentiles (cheaper = higher) of its average negotiated and patient price among the candidates that billed the procedure; 0.5 (grade N/A) without prices. With exactly one carrier in insurance_names_csv, a procedure for which any candidate has that carrier's negotiated dollar rate in the carrier's imported Transparency-in-Coverage files (data import tic; by NPI, professional or both, in force) is priced by those rates alone: its affordability is the share of the other rated candidates whose rate is strictly higher, counted once; candidates without a rate of it have no price for it (percentage and per-diem rates are not dollar prices and are never ranked). Otherwise (no carrier, several, or no rates) prices are the claims' (price_source_by_procedure says which).
**distance** (0-1): 1 − distance / radius.
**final_score** = ${CARE_SCORE_WEIGHTS.quality_of_care} × quality_of_care + ${CARE_SCORE_WEIGHTS.cost} × cost + ${CARE_SCORE_WEIGHTS.distance} × distance. Grades: A ≥ 0.75, B ≥ 0.5, C ≥ 0.25, else D.
**Order**: with insurance_names_csv, in-network clinicians (in network with any given carrier) first; then final_score descending, distance, NPI.
**Badges** (only when true): ALL_PROCEDURES_MATCH (billed every given CPT), ALL_DIAGNOSIS_MATCH (treated every given diagnosis), CONFIDENTLY_AFFORDABLE (cost ≥ ${CARE_AFFORDABLE_MIN_COST} against at least ${CARE_MIN_PRICE_PEERS} priced candidates), NEW_PATIENT_AVAILABLE (accepting new patients).
**Facilities**: affiliated facilities of the candidates within the radius; quality and cost are the means of their candidates' (num_hcp_samples of them), distance from the facility.
Features are computed from the claims (materialised aggregates), and carrier prices from payer files as above. At most ${CARE_MAX_HCP_RESULTS} clinicians and ${CARE_MAX_HCO_RESULTS} facilities are listed; filter_npis narrows before that cut. Unknown ZIP, specialty, carrier or code: 400 naming the field.
**Result cache**: the scoring of a search (keyed by ZIP, specialty, sorted carriers, sorted CPT and ICD-10-CM codes, radius, and the data version; not filter_npis, which narrows after it) is kept in process, at most ${CARE_SCORE_CACHE_MAX_ENTRIES} searches (and ${CARE_SCORE_CACHE_MAX_MIB} MiB) for at most ${CARE_SCORE_CACHE_TTL_MINUTES} minutes, so a repeated search and the referral letter of a search skip it, and a repeated search (the same filter_npis, in any order) sends the answer kept with it; a finished seed or import (a new data version) invalidates every entry. The answer is the same either way; access checks, validation and metering (one credit) apply to every request. _bypass_cache=true scores afresh (and refreshes the entry).`

// ---- referral letter -----------------------------------------------------------------------------

export const REFERRAL_MESSAGES = {
  patientNameRequired: 'Patient name is required',
  dobRequired: 'Date of birth is required',
  invalidForm: 'Please correct the errors below and try again.',
  failed: 'Failed to download the referral letter. Please try again.',
  succeeded: 'Referral letter downloaded successfully!',
} as const
export const REFERRAL_LETTER_FILENAME = 'referral_letter.pdf'
export const REFERRAL_MAX_PROVIDERS = 20

/** YYYY-MM-DD, a real date, not in the future (UTC). */
export function isValidBirthDate(value: string, today = new Date()): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false
  const date = new Date(`${value}T00:00:00Z`)
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) return false
  return value <= today.toISOString().slice(0, 10) && value >= '1900-01-01'
}

export const referralLetterRequestSchema = z
  .object({
    patient_name: z.string({ error: REFERRAL_MESSAGES.patientNameRequired }).trim().min(1, REFERRAL_MESSAGES.patientNameRequired).max(200),
    dob: z
      .string({ error: REFERRAL_MESSAGES.dobRequired })
      .trim()
      .refine((value) => isValidBirthDate(value), REFERRAL_MESSAGES.dobRequired)
      .describe('date of birth, YYYY-MM-DD, not in the future'),
    destination_fax: z.string().max(40).optional().default('').describe('sent as an empty string by the dialog'),
    condition: z.string().max(2000).optional().default('').describe('condition and notes (optional)'),
    selected_npis: z
      .array(z.string().regex(/^\d{10}$/, 'selected_npis must be 10-digit NPIs'))
      .max(REFERRAL_MAX_PROVIDERS)
      .optional()
      .default([])
      .describe('the selected clinicians and facilities (NPIs), listed with their details'),
    // The rankings query as the results page sends it, parsed once here (a partial parse re-parsed by the route turned
    // the comma lists into arrays and refused them). filter_npis is dropped: the selection narrows the letter.
    search: rankingsQuerySchema
      .omit({ filter_npis: true })
      .optional()
      .describe('the search the selection came from (adds scores and grades to the listed providers)'),
  })
  .meta({ id: 'ReferralLetterRequest' })
export type ReferralLetterRequest = z.input<typeof referralLetterRequestSchema>

// ---- member link ---------------------------------------------------------------------------------

export const MEMBER_LINK_MESSAGES = {
  sendFailed: 'Failed to send the provider link. Please try again.',
  sendFailedField: 'Failed to send the provider link. Please check your input.',
  sent: 'Successfully sent provider link!',
  createFailed: 'Failed to create shareable URL',
  linkUnknown: 'Shareable link not found',
  urlMismatch: 'shareable_url must be the link of share_id on this server',
} as const

/** A member's contact: an e-mail address or a US phone number, as contact_type says (spec 3 §5). */
function checkMemberContact(value: { member_contact: string; contact_type: 'phone' | 'email' }, ctx: z.RefinementCtx): void {
  if (value.contact_type === 'email') {
    if (!EMAIL_PATTERN.test(value.member_contact))
      ctx.addIssue({ code: 'custom', path: ['member_contact'], message: MESSAGES.emailInvalidDot })
  } else {
    const phone = normalizeUsPhone(value.member_contact)
    if (!phone.ok) ctx.addIssue({ code: 'custom', path: ['member_contact'], message: phone.message })
  }
}

export const sendMemberLinkRequestSchema = z
  .object({
    member_contact: z.string({ error: MESSAGES.phoneRequired }).trim().max(254),
    contact_type: z.enum(['phone', 'email']),
    share_id: z.uuid(MEMBER_LINK_MESSAGES.linkUnknown),
    shareable_url: z.string().trim().min(1).max(4000).describe('the link returned by POST /shareable-url'),
  })
  .superRefine(checkMemberContact)
  .meta({ id: 'SendMemberLinkRequest' })
/** The share dialog's part of the request (its form validates with it): the contact and its type, checked as above. */
export const memberContactSchema = z
  .object({ member_contact: z.string({ error: MESSAGES.phoneRequired }).trim().max(254), contact_type: z.enum(['phone', 'email']) })
  .superRefine(checkMemberContact)
export type SendMemberLinkRequest = z.input<typeof sendMemberLinkRequestSchema>
export const sendMemberLinkResponseSchema = z
  .object({ message_id: z.string().describe('the outbox id of the SMS or e-mail') })
  .meta({ id: 'SendMemberLinkResponse' })

// ---- endpoints -----------------------------------------------------------------------------------

const careTags = ['care-select'] as const

export const careSelectEndpoints = {
  rankings: defineEndpoint({
    method: 'GET',
    path: '/care-select/rankings',
    summary: 'Ranked clinicians and facilities for a ZIP and a specialty (metered: CARE_SELECT)',
    description: RANKING_METHOD_DESCRIPTION,
    tags: careTags,
    security: ['bearer', 'shareToken'],
    query: rankingsQuerySchema.extend({
      token: z
        .string()
        .max(4096)
        .optional()
        .describe(
          'a shareable link token. Alone it is the credential (shareToken); beside a Bearer credential it binds the request to the link: ' +
            'a link with authorized_user_ids answers only those users (403), and it must list this endpoint (403)',
        ),
    }),
    response: rankingsResponseSchema,
    errors: [400, 401, 402, 403],
  }),
  referralLetter: defineEndpoint({
    method: 'POST',
    path: '/care-select/referral-letter',
    summary: 'A referral letter as a PDF (attachment referral_letter.pdf): patient, referring user and company, selected providers',
    tags: careTags,
    security: ['bearer'],
    body: referralLetterRequestSchema,
    response: z.any().describe('application/pdf'),
    errors: [400, 401, 402, 403],
    invalidInput: { priority: [REFERRAL_MESSAGES.patientNameRequired, REFERRAL_MESSAGES.dobRequired] },
  }),
  sendMemberLink: defineEndpoint({
    method: 'POST',
    path: '/care-select/send-member-link',
    summary: 'Send a shareable link to a member by SMS (Twilio) or e-mail, through the outbox; message_id is the outbox id',
    tags: careTags,
    security: ['bearer'],
    body: sendMemberLinkRequestSchema,
    response: sendMemberLinkResponseSchema,
    errors: [400, 401, 403, 404],
  }),
} as const
