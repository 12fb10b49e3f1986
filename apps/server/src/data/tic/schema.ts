import { z } from 'zod'

/**
 * The parts of CMS's Transparency-in-Coverage schemas (price-transparency-guide 2.x, schemas/*.json) the importer
 * reads, as zod schemas applied to each captured piece of a file (one provider group, one negotiated_rates
 * element, one allowed_amounts element, one reporting_structure element, the header at the end).
 */

export const BILLING_CODE_TYPES = [
  'CPT',
  'HCPCS',
  'ICD',
  'MS-DRG',
  'R-DRG',
  'S-DRG',
  'APS-DRG',
  'AP-DRG',
  'APR-DRG',
  'APC',
  'NDC',
  'HIPPS',
  'LOCAL',
  'EAPG',
  'CDT',
  'RC',
  'CSTM-ALL',
] as const
export const NEGOTIATED_TYPES = ['negotiated', 'derived', 'fee schedule', 'percentage', 'per diem'] as const
export type NegotiatedType = (typeof NEGOTIATED_TYPES)[number]
/** negotiated_rate in dollars (the others: a percentage, dollars per day) */
export const DOLLAR_TYPES: readonly NegotiatedType[] = ['negotiated', 'derived', 'fee schedule']
export const ARRANGEMENTS = ['ffs', 'bundle', 'capitation'] as const

const text = z.string().min(1)
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD')
const serviceCode = z.string().regex(/^(0[1-9]|[1-9][0-9]|CSTM-00)$/, 'a two-digit CMS place-of-service code or CSTM-00')

export const tinSchema = z.object({
  type: z.enum(['ein', 'npi']),
  value: text,
  business_name: text.optional(),
})

/** npi [0] = the group has no NPI (the rates are keyed by TIN). */
export const providerSchema = z.object({
  npi: z.array(z.number().int().min(0).max(9_999_999_999)).min(1),
  tin: tinSchema,
})

export const providerReferenceSchema = z
  .object({
    provider_group_id: z.number().int(),
    network_name: z.array(text).optional(),
    provider_groups: z.array(providerSchema).min(1).optional(),
    // a reference to a separate provider file (location): not fetched, counted as skipped
    location: text.optional(),
  })
  .refine((r) => r.provider_groups !== undefined || r.location !== undefined, { message: 'provider_groups is required', path: ['provider_groups'] })
export type ProviderReference = z.infer<typeof providerReferenceSchema>

export const negotiatedPriceSchema = z
  .object({
    negotiated_type: z.enum(NEGOTIATED_TYPES),
    negotiated_rate: z.number().positive().max(1e11),
    expiration_date: date,
    service_code: z.array(serviceCode).optional(),
    billing_class: z.enum(['professional', 'institutional', 'both']),
    setting: z.enum(['inpatient', 'outpatient', 'both']),
    billing_code_modifier: z.array(z.string()).optional(),
    additional_information: z.string().optional(),
  })
  .refine((p) => p.billing_class !== 'professional' || (p.service_code?.length ?? 0) > 0, {
    message: 'a professional rate needs service_code',
    path: ['service_code'],
  })
export type NegotiatedPrice = z.infer<typeof negotiatedPriceSchema>

/** provider_references (schema 2.x) and/or inline provider_groups (schema 1.x). */
export const negotiatedRateSchema = z
  .object({
    provider_references: z.array(z.number().int()).optional(),
    provider_groups: z.array(providerSchema).optional(),
    negotiated_prices: z.array(negotiatedPriceSchema).min(1),
  })
  .refine((r) => (r.provider_references?.length ?? 0) + (r.provider_groups?.length ?? 0) > 0, {
    message: 'provider_references or provider_groups is required',
    path: ['provider_references'],
  })
export type NegotiatedRate = z.infer<typeof negotiatedRateSchema>

export const containedCodesSchema = z.array(
  z.object({ billing_code_type: z.enum(BILLING_CODE_TYPES), billing_code_type_version: text.optional(), billing_code: text, description: z.string().optional() }),
)

export const inNetworkHeadSchema = z.object({
  negotiation_arrangement: z.enum(ARRANGEMENTS),
  name: text,
  billing_code_type: z.enum(BILLING_CODE_TYPES),
  billing_code_type_version: text,
  billing_code: text,
  description: text,
  bundled_codes: containedCodesSchema.optional(),
  covered_services: containedCodesSchema.optional(),
})
export type InNetworkHead = z.infer<typeof inNetworkHeadSchema>

export const outOfNetworkHeadSchema = z.object({
  name: text,
  billing_code_type: z.enum(BILLING_CODE_TYPES),
  billing_code_type_version: text,
  billing_code: text,
  description: text,
})
export type OutOfNetworkHead = z.infer<typeof outOfNetworkHeadSchema>

export const allowedAmountSchema = z
  .object({
    tin: tinSchema,
    service_code: z.array(serviceCode).optional(),
    billing_class: z.enum(['professional', 'institutional']),
    setting: z.enum(['inpatient', 'outpatient', 'both']).optional(),
    payments: z
      .array(
        z.object({
          allowed_amount: z.number().min(0).max(1e11),
          billing_code_modifier: z.array(z.string().min(1)).optional(),
          providers: z.array(z.object({ billed_charge: z.number().min(0).max(1e11), npi: z.array(z.number().int().min(0).max(9_999_999_999)).min(1) })).min(1),
        }),
      )
      .min(1),
  })
  .refine((a) => a.billing_class !== 'professional' || (a.service_code?.length ?? 0) > 0, {
    message: 'a professional amount needs service_code',
    path: ['service_code'],
  })
export type AllowedAmount = z.infer<typeof allowedAmountSchema>

const planFields = {
  plan_name: text.optional(),
  plan_id_type: z.enum(['ein', 'hios']).optional(),
  plan_id: text.optional(),
  plan_market_type: z.enum(['group', 'individual']).optional(),
  issuer_name: text.optional(),
  plan_sponsor_name: text.optional(),
}

export const headerSchema = z.object({
  reporting_entity_name: text,
  reporting_entity_type: text,
  last_updated_on: date,
  version: text,
  ...planFields,
})
export type TicHeader = z.infer<typeof headerSchema>

export const reportingPlanSchema = z.object({
  plan_name: text,
  plan_id_type: z.enum(['ein', 'hios']),
  plan_id: text,
  plan_market_type: z.enum(['group', 'individual']),
  issuer_name: text,
  plan_sponsor_name: text.optional(),
})
export type ReportingPlan = z.infer<typeof reportingPlanSchema>

const fileLocation = z.object({ description: z.string(), location: text })

export const reportingStructureSchema = z
  .object({
    reporting_plans: z.array(reportingPlanSchema).min(1),
    in_network_files: z.array(fileLocation).optional(),
    allowed_amount_file: fileLocation.optional(),
  })
  .refine((s) => (s.in_network_files?.length ?? 0) > 0 || s.allowed_amount_file !== undefined, {
    message: 'in_network_files or allowed_amount_file is required',
    path: ['in_network_files'],
  })
export type ReportingStructure = z.infer<typeof reportingStructureSchema>
