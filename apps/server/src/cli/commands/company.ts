import { PLAN_TIERS, type PlanTier } from '@citrus/contracts'
import { CompanyService, parsePolicySpec, type CompanyRecord } from '../../domain/companies.js'
import { badRequest } from '../../lib/errors.js'
import { optionalInt, requireId, requireString, type Command } from '../command.js'

function companyLines(company: CompanyRecord): string {
  const policies = company.policies.map((p) => `${p.product_group}${p.limit === null ? '' : `:${p.limit}`}`).join(', ')
  return [
    `id:                 ${company.id}`,
    `name:               ${company.company_name}`,
    `industry:           ${company.industry}`,
    `renewal cycle days: ${company.renewal_cycle_days}`,
    `activation key:     ${company.activation_key}`,
    `policies:           ${policies}`,
    `atlas plan tier:    ${company.plan_tier}`,
  ].join('\n')
}

/** The company fields that create and update take. */
const COMPANY_FIELD_OPTIONS = {
  name: { type: 'string' },
  industry: { type: 'string' },
  'renewal-days': { type: 'string' },
  policy: { type: 'string', multiple: true },
  'plan-tier': { type: 'string' },
} as const

/** --plan-tier BASE|BUSINESS|BUSINESS_PLUS|ENTERPRISE (Business+ as BUSINESS+ or business_plus too). */
function planTierOption(values: Record<string, unknown>): { plan_tier?: PlanTier } {
  const raw = values['plan-tier']
  if (typeof raw !== 'string') return {}
  const tier = raw.trim().toUpperCase().replace(/\+$/, '_PLUS').replace(/[\s-]/g, '_')
  if (!(PLAN_TIERS as readonly string[]).includes(tier))
    throw badRequest(`Unknown plan tier "${raw}". Use one of ${PLAN_TIERS.join(', ')}.`)
  return { plan_tier: tier as PlanTier }
}

/** Companies: create, list, show, update, reset the activation key. */
export const companyCommands: Command[] = [
  {
    name: 'company create',
    summary: 'Create a company; prints its activation key',
    usage:
      'company create --name <name> --industry <industry> [--renewal-days 30] [--policy GROUP[:limit]]... [--plan-tier BASE|BUSINESS|BUSINESS_PLUS|ENTERPRISE]',
    options: COMPANY_FIELD_OPTIONS,
    async run(context, values) {
      const policies = ((values.policy as string[] | undefined) ?? ['ATLAS']).map(parsePolicySpec)
      const company = await new CompanyService(context.db.prisma).create({
        company_name: requireString(values, 'name'),
        industry: requireString(values, 'industry'),
        renewal_cycle_days: optionalInt(values, 'renewal-days') ?? 30,
        policies,
        ...planTierOption(values),
      })
      context.print(company, () => `Company created.\n${companyLines(company)}\n\nSign-up link key: ${company.activation_key}`)
    },
  },
  {
    name: 'company list',
    summary: 'List companies',
    usage: 'company list',
    async run(context) {
      const companies = await new CompanyService(context.db.prisma).list()
      context.print(companies, () =>
        companies.length === 0
          ? 'No companies found'
          : companies
              .map(
                (c) =>
                  `${String(c.id).padStart(5)}  ${c.company_name.padEnd(32)} ${c.industry.padEnd(20)} ${c.policies.map((p) => p.product_group).join(',')}`,
              )
              .join('\n'),
      )
    },
  },
  {
    name: 'company show',
    summary: 'Show one company',
    usage: 'company show <id>',
    async run(context, _values, [id]) {
      const company = await new CompanyService(context.db.prisma).get(requireId(id, 'company id'))
      context.print(company, () => companyLines(company))
    },
  },
  {
    name: 'company update',
    summary: 'Change a company; --policy replaces all policies',
    usage: 'company update <id> [--name <name>] [--industry <industry>] [--renewal-days N] [--policy GROUP[:limit]]... [--plan-tier TIER]',
    options: COMPANY_FIELD_OPTIONS,
    async run(context, values, [id]) {
      const policies = values.policy ? (values.policy as string[]).map(parsePolicySpec) : undefined
      const renewal = optionalInt(values, 'renewal-days')
      const company = await new CompanyService(context.db.prisma).update(requireId(id, 'company id'), {
        ...(typeof values.name === 'string' ? { company_name: values.name } : {}),
        ...(typeof values.industry === 'string' ? { industry: values.industry } : {}),
        ...(renewal !== undefined ? { renewal_cycle_days: renewal } : {}),
        ...(policies ? { policies } : {}),
        ...planTierOption(values),
      })
      context.print(company, () => `Company updated.\n${companyLines(company)}`)
    },
  },
  {
    name: 'company reset-key',
    summary: 'Issue a new activation key (the old one stops working)',
    usage: 'company reset-key <id>',
    async run(context, _values, [id]) {
      const company = await new CompanyService(context.db.prisma).resetActivationKey(requireId(id, 'company id'))
      context.print(company, () => `New activation key for company ${company.id}: ${company.activation_key}`)
    },
  },
]
