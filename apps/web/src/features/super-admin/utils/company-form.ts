import { PRODUCT_GROUPS, companyUpdateRecordSchema, createCompanyRequestSchema, type PlanTier, type ProductGroup } from '@citrus/contracts'
import type { Company, CreateCompanyRequest, UpdateCompanyRequest } from '../api/companies'
import { SUPER_ADMIN_MESSAGES } from './messages'

/** One policy row of the company form; an empty limit means unlimited. */
export interface PolicyDraft {
  key: string
  product_group: ProductGroup | null
  limit: number | ''
}

export interface CompanyDraft {
  company_name: string
  industry: string
  renewal_cycle_days: number | ''
  /** the Atlas plan tier (docs/decisions/0033); a new company starts at BASE */
  plan_tier: PlanTier
  policies: PolicyDraft[]
}

let nextKey = 0
const policyKey = () => `policy-${++nextKey}`

/** The first policy of a new company: ATLAS with no limit (spec 1 §5). */
export const firstPolicy = (): PolicyDraft => ({ key: policyKey(), product_group: 'ATLAS', limit: '' })

export const emptyCompanyDraft = (): CompanyDraft => ({
  company_name: '',
  industry: '',
  renewal_cycle_days: '',
  plan_tier: 'BASE',
  policies: [firstPolicy()],
})

export function draftFromCompany(
  company: Pick<Company, 'company_name' | 'industry' | 'renewal_cycle_days' | 'policies'> & { plan_tier?: PlanTier | undefined },
): CompanyDraft {
  return {
    company_name: company.company_name ?? '',
    industry: company.industry ?? '',
    renewal_cycle_days: typeof company.renewal_cycle_days === 'number' ? company.renewal_cycle_days : '',
    plan_tier: company.plan_tier ?? 'BASE',
    policies: (company.policies ?? []).map((policy) => ({
      key: policyKey(),
      product_group: policy.product_group,
      limit: typeof policy.limit === 'number' ? policy.limit : '',
    })),
  }
}

/** A new row starts without a group (each group may appear once; the form offers the unused ones). */
export const canAddPolicy = (policies: readonly PolicyDraft[]) => policies.length < PRODUCT_GROUPS.length
export function addPolicy(policies: readonly PolicyDraft[]): PolicyDraft[] {
  if (!canAddPolicy(policies)) return [...policies]
  return [...policies, { key: policyKey(), product_group: null, limit: '' }]
}

/** Policies can be removed only while more than one exists (spec 1 §5). */
export const canRemovePolicy = (policies: readonly PolicyDraft[]) => policies.length > 1
export function removePolicy(policies: readonly PolicyDraft[], key: string): PolicyDraft[] {
  if (!canRemovePolicy(policies)) return [...policies]
  return policies.filter((policy) => policy.key !== key)
}

export function updatePolicy(policies: readonly PolicyDraft[], key: string, change: Partial<Omit<PolicyDraft, 'key'>>): PolicyDraft[] {
  return policies.map((policy) => (policy.key === key ? { ...policy, ...change } : policy))
}

/** Groups another row already uses (offered disabled, so a group is never listed twice). */
export const groupsTakenByOthers = (policies: readonly PolicyDraft[], key: string) =>
  new Set(policies.filter((policy) => policy.key !== key && policy.product_group).map((policy) => policy.product_group as ProductGroup))

const toPolicies = (policies: readonly PolicyDraft[]) =>
  policies.map((policy) => ({ product_group: policy.product_group, limit: policy.limit === '' ? null : policy.limit }))

const toNumber = (value: number | '') => (value === '' ? undefined : value)

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string }

/**
 * Create company (spec 1 §5): company name, industry and renewal cycle days required, every policy needs a
 * product group, a limit is optional and an integer; any break gives 'Please fill in all required fields correctly.'
 * The rules are the server's own request schema.
 */
export function validateCreateCompany(draft: CompanyDraft): Checked<CreateCompanyRequest> {
  const parsed = createCompanyRequestSchema.safeParse({
    company_name: draft.company_name,
    industry: draft.industry,
    renewal_cycle_days: toNumber(draft.renewal_cycle_days),
    policies: toPolicies(draft.policies),
    plan_tier: draft.plan_tier,
  })
  if (!parsed.success) return { ok: false, message: SUPER_ADMIN_MESSAGES.fieldsRequired }
  return {
    ok: true,
    value: {
      ...parsed.data,
      policies: parsed.data.policies.map((policy) => ({ product_group: policy.product_group, limit: policy.limit ?? null })),
    },
  }
}

/** Edit company (spec 1 §5): name and industry required, each policy needs a group, renewal cycle days a number. */
export function validateEditCompany(
  draft: CompanyDraft,
  company: Pick<Company, 'id' | 'activation_key'>,
  resetActivationKey: boolean,
): Checked<UpdateCompanyRequest> {
  const parsed = companyUpdateRecordSchema.safeParse({
    id: company.id,
    company_name: draft.company_name,
    industry: draft.industry,
    renewal_cycle_days: toNumber(draft.renewal_cycle_days),
    policies: toPolicies(draft.policies),
    plan_tier: draft.plan_tier,
    activation_key: company.activation_key ?? null,
  })
  if (!parsed.success || parsed.data.renewal_cycle_days === undefined || parsed.data.policies === undefined) {
    return { ok: false, message: SUPER_ADMIN_MESSAGES.fieldsRequired }
  }
  return {
    ok: true,
    value: {
      record: {
        id: parsed.data.id,
        company_name: parsed.data.company_name,
        industry: parsed.data.industry,
        renewal_cycle_days: parsed.data.renewal_cycle_days,
        policies: parsed.data.policies.map((policy) => ({ product_group: policy.product_group, limit: policy.limit ?? null })),
        plan_tier: draft.plan_tier,
        activation_key: company.activation_key ?? null,
      },
      reset_activation_key: resetActivationKey,
    },
  }
}
