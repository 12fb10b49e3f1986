import { CompanyService, parsePolicySpec, type CompanyRecord } from '../../domain/companies.js'
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
  ].join('\n')
}

/** The company fields that create and update take. */
const COMPANY_FIELD_OPTIONS = {
  name: { type: 'string' },
  industry: { type: 'string' },
  'renewal-days': { type: 'string' },
  policy: { type: 'string', multiple: true },
} as const

/** Companies: create, list, show, update, reset the activation key. */
export const companyCommands: Command[] = [
  {
    name: 'company create',
    summary: 'Create a company; prints its activation key',
    usage: 'company create --name <name> --industry <industry> [--renewal-days 30] [--policy GROUP[:limit]]...',
    options: COMPANY_FIELD_OPTIONS,
    async run(context, values) {
      const policies = ((values.policy as string[] | undefined) ?? ['ATLAS']).map(parsePolicySpec)
      const company = await new CompanyService(context.db.prisma).create({
        company_name: requireString(values, 'name'),
        industry: requireString(values, 'industry'),
        renewal_cycle_days: optionalInt(values, 'renewal-days') ?? 30,
        policies,
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
    usage: 'company update <id> [--name <name>] [--industry <industry>] [--renewal-days N] [--policy GROUP[:limit]]...',
    options: COMPANY_FIELD_OPTIONS,
    async run(context, values, [id]) {
      const policies = values.policy ? (values.policy as string[]).map(parsePolicySpec) : undefined
      const renewal = optionalInt(values, 'renewal-days')
      const company = await new CompanyService(context.db.prisma).update(requireId(id, 'company id'), {
        ...(typeof values.name === 'string' ? { company_name: values.name } : {}),
        ...(typeof values.industry === 'string' ? { industry: values.industry } : {}),
        ...(renewal !== undefined ? { renewal_cycle_days: renewal } : {}),
        ...(policies ? { policies } : {}),
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
