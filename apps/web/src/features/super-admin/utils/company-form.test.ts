import { describe, expect, it } from 'vitest'
import {
  addPolicy,
  canAddPolicy,
  canRemovePolicy,
  draftFromCompany,
  emptyCompanyDraft,
  groupsTakenByOthers,
  removePolicy,
  updatePolicy,
  validateCreateCompany,
  validateEditCompany,
  type CompanyDraft,
} from './company-form'

const REQUIRED = 'Please fill in all required fields correctly.'

const valid = (overrides: Partial<CompanyDraft> = {}): CompanyDraft => ({
  ...emptyCompanyDraft(),
  company_name: 'Acme Health',
  industry: 'Pharma',
  renewal_cycle_days: 30,
  ...overrides,
})

describe('create company form (spec 1 §5)', () => {
  it('starts with one ATLAS policy without a limit', () => {
    const draft = emptyCompanyDraft()
    expect(draft.policies).toHaveLength(1)
    expect(draft.policies[0]).toMatchObject({ product_group: 'ATLAS', limit: '' })
  })

  it('accepts a complete form; an empty limit means unlimited (null)', () => {
    expect(validateCreateCompany(valid({ company_name: '  Acme Health ' }))).toEqual({
      ok: true,
      value: {
        company_name: 'Acme Health',
        industry: 'Pharma',
        renewal_cycle_days: 30,
        policies: [{ product_group: 'ATLAS', limit: null }],
        plan_tier: 'BASE',
      },
    })
    expect(validateCreateCompany(valid({ plan_tier: 'BUSINESS_PLUS' }))).toMatchObject({ ok: true, value: { plan_tier: 'BUSINESS_PLUS' } })
  })

  it.each([
    ['company name', { company_name: '' }],
    ['company name (spaces)', { company_name: '   ' }],
    ['industry', { industry: '' }],
    ['renewal cycle days', { renewal_cycle_days: '' as const }],
    ['renewal cycle days (zero)', { renewal_cycle_days: 0 }],
    ['renewal cycle days (fraction)', { renewal_cycle_days: 1.5 }],
  ])("missing or wrong %s: 'Please fill in all required fields correctly.'", (_, change) => {
    expect(validateCreateCompany(valid(change))).toEqual({ ok: false, message: REQUIRED })
  })

  it('every policy needs a product group', () => {
    const draft = valid()
    draft.policies = addPolicy(draft.policies)
    expect(validateCreateCompany(draft)).toEqual({ ok: false, message: REQUIRED })
    const key = draft.policies[1]?.key as string
    draft.policies = updatePolicy(draft.policies, key, { product_group: 'NOVA', limit: 500 })
    expect(validateCreateCompany(draft)).toMatchObject({
      ok: true,
      value: {
        policies: [
          { product_group: 'ATLAS', limit: null },
          { product_group: 'NOVA', limit: 500 },
        ],
      },
    })
  })

  it('a limit is optional and must be a whole number', () => {
    const draft = valid()
    const key = draft.policies[0]?.key as string
    expect(validateCreateCompany({ ...draft, policies: updatePolicy(draft.policies, key, { limit: 2.5 }) })).toEqual({
      ok: false,
      message: REQUIRED,
    })
    expect(validateCreateCompany({ ...draft, policies: updatePolicy(draft.policies, key, { limit: 0 }) })).toMatchObject({ ok: true })
  })

  it('policies can be added (each group once) and removed only while more than one exists', () => {
    let policies = emptyCompanyDraft().policies
    expect(canRemovePolicy(policies)).toBe(false)
    expect(removePolicy(policies, policies[0]?.key as string)).toHaveLength(1)
    policies = addPolicy(policies)
    expect(policies).toHaveLength(2)
    expect(policies[1]).toMatchObject({ product_group: null, limit: '' })
    expect(canRemovePolicy(policies)).toBe(true)
    expect([...groupsTakenByOthers(policies, policies[1]?.key as string)]).toEqual(['ATLAS'])
    policies = removePolicy(policies, policies[0]?.key as string)
    expect(policies).toHaveLength(1)
    expect(policies[0]?.product_group).toBeNull()
    for (let i = 0; i < 10; i++) policies = addPolicy(policies)
    expect(policies).toHaveLength(5)
    expect(canAddPolicy(policies)).toBe(false)
  })
})

describe('edit company form (spec 1 §5)', () => {
  const company = {
    id: 4,
    company_name: 'Acme Health',
    industry: 'Pharma',
    renewal_cycle_days: 30,
    activation_key: 'K'.repeat(43),
    policies: [
      { product_group: 'ATLAS' as const, limit: null },
      { product_group: 'NOVA' as const, limit: 100 },
    ],
  }

  it('starts from the record; a null limit shows empty', () => {
    const draft = draftFromCompany(company)
    expect(draft).toMatchObject({ company_name: 'Acme Health', industry: 'Pharma', renewal_cycle_days: 30, plan_tier: 'BASE' })
    expect(draftFromCompany({ ...company, plan_tier: 'BUSINESS_PLUS' }).plan_tier).toBe('BUSINESS_PLUS')
    expect(draft.policies.map(({ product_group, limit }) => ({ product_group, limit }))).toEqual([
      { product_group: 'ATLAS', limit: '' },
      { product_group: 'NOVA', limit: 100 },
    ])
  })

  it('builds the documented PUT body with reset_activation_key', () => {
    expect(validateEditCompany(draftFromCompany(company), company, true)).toEqual({
      ok: true,
      value: {
        record: {
          id: 4,
          company_name: 'Acme Health',
          industry: 'Pharma',
          renewal_cycle_days: 30,
          policies: company.policies,
          plan_tier: 'BASE',
          activation_key: company.activation_key,
        },
        reset_activation_key: true,
      },
    })
    expect(validateEditCompany({ ...draftFromCompany(company), plan_tier: 'ENTERPRISE' }, company, false)).toMatchObject({
      ok: true,
      value: { record: { plan_tier: 'ENTERPRISE' }, reset_activation_key: false },
    })
  })

  it('keeps the plan tier of the record when editing', () => {
    expect(validateEditCompany(draftFromCompany({ ...company, plan_tier: 'BUSINESS' }), company, false)).toMatchObject({
      ok: true,
      value: { record: { plan_tier: 'BUSINESS' } },
    })
  })

  it.each([
    ['name', { company_name: '' }],
    ['industry', { industry: ' ' }],
    ['renewal cycle days as a number', { renewal_cycle_days: '' as const }],
  ])("requires %s: 'Please fill in all required fields correctly.'", (_, change) => {
    expect(validateEditCompany({ ...draftFromCompany(company), ...change }, company, false)).toEqual({ ok: false, message: REQUIRED })
  })

  it('each policy needs a group', () => {
    const draft = draftFromCompany(company)
    draft.policies = addPolicy(draft.policies)
    expect(validateEditCompany(draft, company, false)).toEqual({ ok: false, message: REQUIRED })
  })
})
