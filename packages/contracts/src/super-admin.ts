import { z } from 'zod'
import { productGroupSchema } from './access.js'
import { companyUserSchema } from './admin.js'
import { INT32_MAX, INPUT_MESSAGES, idParamSchema } from './validation.js'
import { defineEndpoint } from './endpoint.js'
import { planTierSchema } from './atlas.js'

export const SUPER_ADMIN_ROLES = ['citrus'] as const

export const COMPANY_MESSAGES = {
  /** spec 1 §5: create (and edit) company form */
  fieldsRequired: 'Please fill in all required fields correctly.',
  notFound: (id: number) => `Company ${id} not found`,
  duplicateGroup: (group: string) => `Product group ${group} is listed twice`,
  /** spec 1 §4 (client success toasts) */
  updated: 'Company updated successfully',
  activated: 'Company activated successfully',
} as const

const required = COMPANY_MESSAGES.fieldsRequired
const requiredText = z.string({ error: required }).trim().min(1, required).max(200, required)

export const companyPolicyInputSchema = z.object({
  product_group: z.preprocess(
    (value) => (typeof value === 'string' ? value.trim().toUpperCase() : value),
    productGroupSchema.describe('required'),
  ),
  limit: z
    .preprocess(
      (value) => (value === '' ? null : value),
      z.number({ error: required }).int(required).min(0, required).max(INT32_MAX, INPUT_MESSAGES.int32TooLarge).nullable().optional(),
    )
    .describe('credits per renewal cycle; null or absent = unlimited'),
})

export const companyPolicySchema = z.object({ product_group: productGroupSchema, limit: z.number().int().nullable() })

const renewalCycleDays = z.number({ error: required }).int(required).min(1, required).max(3650, required)
const policies = z.array(companyPolicyInputSchema, { error: required }).min(1, required).max(20)

export const createCompanyRequestSchema = z
  .object({
    company_name: requiredText,
    industry: requiredText,
    renewal_cycle_days: renewalCycleDays,
    policies,
    plan_tier: planTierSchema.optional().describe('Atlas plan tier (BASE, BUSINESS, BUSINESS_PLUS, ENTERPRISE); default BASE'),
  })
  .meta({ id: 'CreateCompanyRequest' })
export type CreateCompanyRequest = z.infer<typeof createCompanyRequestSchema>

/** The record of PUT /super-admin/company; activation_key is informational (use reset_activation_key to change it). */
export const companyUpdateRecordSchema = z
  .object({
    id: z.number({ error: required }).int().positive().max(INT32_MAX, INPUT_MESSAGES.int32TooLarge),
    company_name: requiredText,
    industry: requiredText,
    renewal_cycle_days: renewalCycleDays.optional(),
    policies: policies.optional().describe('replaces all policies when given'),
    plan_tier: planTierSchema.optional().describe('Atlas plan tier'),
    activation_key: z.string().nullable().optional().describe('ignored: keys are only issued by the server'),
  })
  .meta({ id: 'CompanyUpdateRecord' })

const resetActivationKey = z
  .boolean({ error: 'Expected a boolean' })
  .optional()
  .describe('true = issue a new activation key (the old one stops working)')

/** The record's fields at the top level next to reset_activation_key: what the server works with. */
export const flatUpdateCompanyRequestSchema = companyUpdateRecordSchema.extend({ reset_activation_key: resetActivationKey })
/** The two forms a client may send. */
type UpdateCompanyRequestForms =
  | z.input<typeof flatUpdateCompanyRequestSchema>
  | { record: z.input<typeof companyUpdateRecordSchema>; reset_activation_key?: boolean | undefined }

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * PUT /super-admin/company accepts the documented body { record, reset_activation_key } (spec 1 §7)
 * and, equally, the record's fields at the top level next to reset_activation_key. The nested form is
 * flattened before validation, so that refusals name the record's own fields (body.company_name).
 */
export const updateCompanyRequestSchema = z
  .preprocess(
    (body) =>
      isPlainObject(body) && isPlainObject(body.record) ? { ...body.record, reset_activation_key: body.reset_activation_key } : body,
    flatUpdateCompanyRequestSchema,
  )
  .meta({ id: 'UpdateCompanyRequest' }) as unknown as z.ZodType<z.output<typeof flatUpdateCompanyRequestSchema>, UpdateCompanyRequestForms>
export type UpdateCompanyRequest = UpdateCompanyRequestForms

export const companyRecordSchema = z
  .object({
    id: z.number().int(),
    company_name: z.string(),
    industry: z.string(),
    renewal_cycle_days: z.number().int(),
    activation_key: z.string(),
    created_at: z.string().describe('ISO 8601; credit cycles count from here'),
    policies: z.array(companyPolicySchema),
    plan_tier: planTierSchema.default('BASE').describe('Atlas plan tier (docs/decisions/0033)'),
  })
  .meta({ id: 'Company' })
export type CompanyRecordResponse = z.infer<typeof companyRecordSchema>

export const companyListResponseSchema = z.object({ companies: z.array(companyRecordSchema) }).meta({ id: 'CompanyList' })

export const companyIdParamsSchema = z.object({ id: idParamSchema })

export const companyUsersResponseSchema = z
  .object({ users: z.array(companyUserSchema.extend({ is_active: z.boolean() })) })
  .meta({ id: 'CompanyUsers' })

// ---- Audit log ---------------------------------------------------------------------------------

export const AUDIT_ACTIONS = [
  'company.create',
  'company.update',
  'company.reset_activation_key',
  'api_key.create',
  'api_key.revoke',
  'onboarding_email.send',
  'user.role_change',
  'user.deactivate',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export const auditLogQuerySchema = z.object({
  company_id: idParamSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
})

export const auditEntrySchema = z
  .object({
    id: z.number().int(),
    created_at: z.string(),
    source: z.enum(['api', 'cli']).describe('cli = an operator at the command line (no signed-in actor)'),
    actor_user_id: z.number().int().nullable(),
    actor_email: z.string().nullable(),
    company_id: z.number().int().nullable().describe('the company acted on'),
    action: z.string(),
    target_type: z.string(),
    target_id: z.string().nullable(),
    details: z.unknown(),
  })
  .meta({ id: 'AuditEntry' })
export const auditLogResponseSchema = z.object({ entries: z.array(auditEntrySchema).describe('newest first') }).meta({ id: 'AuditLog' })

// ---- Endpoints ---------------------------------------------------------------------------------

const superAdminTags = ['super-admin'] as const
const superAdminSecurity = ['bearer'] as const

/** Internal company administration (spec 1 §2 Super Admin Dashboard, §7): role citrus only. */
export const superAdminEndpoints = {
  listCompanies: defineEndpoint({
    method: 'GET',
    path: '/super-admin/company',
    summary: 'Every company with its activation key and policies, by id',
    tags: superAdminTags,
    security: superAdminSecurity,
    response: companyListResponseSchema,
    errors: [401, 403],
  }),
  getCompany: defineEndpoint({
    method: 'GET',
    path: '/super-admin/company/{id}',
    summary: 'One company',
    tags: superAdminTags,
    security: superAdminSecurity,
    params: companyIdParamsSchema,
    response: companyRecordSchema,
    errors: [400, 401, 403, 404],
  }),
  createCompany: defineEndpoint({
    method: 'POST',
    path: '/super-admin/company',
    summary: `Create a company with its policies (limit null = unlimited credits); a new activation key is issued. Invalid input: '${COMPANY_MESSAGES.fieldsRequired}'`,
    tags: superAdminTags,
    security: superAdminSecurity,
    body: createCompanyRequestSchema,
    response: companyRecordSchema,
    errors: [400, 401, 403],
    invalidInput: { message: COMPANY_MESSAGES.fieldsRequired },
  }),
  updateCompany: defineEndpoint({
    method: 'PUT',
    path: '/super-admin/company',
    summary:
      'Update a company. Body: { record: { id, company_name, industry, renewal_cycle_days, policies, activation_key }, reset_activation_key } as documented, or the same fields flat next to reset_activation_key. policies, when given, replace all policies; activation_key is ignored (reset_activation_key: true issues a new one)',
    tags: superAdminTags,
    security: superAdminSecurity,
    body: updateCompanyRequestSchema,
    response: companyRecordSchema,
    errors: [400, 401, 403, 404],
    invalidInput: { message: COMPANY_MESSAGES.fieldsRequired },
  }),
  companyUsers: defineEndpoint({
    method: 'GET',
    path: '/super-admin/company/{id}/users',
    summary: "A company's users (deactivated ones included, with is_active false), by id",
    tags: superAdminTags,
    security: superAdminSecurity,
    params: companyIdParamsSchema,
    response: companyUsersResponseSchema,
    errors: [400, 401, 403, 404],
  }),
  auditLog: defineEndpoint({
    method: 'GET',
    path: '/super-admin/audit-log',
    summary: 'Administration changes (companies, API keys, onboarding e-mails, roles, deactivations), newest first',
    tags: superAdminTags,
    security: superAdminSecurity,
    query: auditLogQuerySchema,
    response: auditLogResponseSchema,
    errors: [400, 401, 403],
  }),
} as const
