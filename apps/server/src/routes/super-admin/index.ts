import { SUPER_ADMIN_ROLES, superAdminEndpoints, type CompanyRecordResponse } from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { apiActor, auditEntries } from '../../domain/audit.js'
import { CompanyService, type CompanyRecord } from '../../domain/companies.js'
import { route } from '../../lib/endpoint.js'
import { requireRoles, userOf } from '../../plugins/auth.js'

function toCompanyResponse(company: CompanyRecord): CompanyRecordResponse {
  return { ...company, created_at: company.created_at.toISOString() }
}

/** Internal company administration (spec 1 §2 Super Admin Dashboard, §7): role citrus only; the rules in domain/companies.ts. */
export const superAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  const { prisma } = app.db
  const guard = requireRoles(SUPER_ADMIN_ROLES)
  const companies = (request: Parameters<typeof userOf>[0]) => new CompanyService(prisma, apiActor(userOf(request)))

  route(app, superAdminEndpoints.listCompanies, { onRequest: guard }, async (request) => ({
    companies: (await companies(request).list()).map(toCompanyResponse),
  }))

  route(app, superAdminEndpoints.getCompany, { onRequest: guard }, async (request) =>
    toCompanyResponse(await companies(request).get(request.params.id)),
  )

  route(app, superAdminEndpoints.createCompany, { onRequest: guard }, async (request) => {
    const { company_name, industry, renewal_cycle_days, policies, plan_tier } = request.body
    return toCompanyResponse(
      await companies(request).create({ company_name, industry, renewal_cycle_days, policies, ...(plan_tier ? { plan_tier } : {}) }),
    )
  })

  route(app, superAdminEndpoints.updateCompany, { onRequest: guard }, async (request) => {
    // the contract flattens the documented { record, reset_activation_key } form before validating it
    const { id, company_name, industry, renewal_cycle_days, policies, plan_tier, reset_activation_key } = request.body
    const updated = await companies(request).update(id, {
      company_name,
      industry,
      ...(renewal_cycle_days !== undefined ? { renewal_cycle_days } : {}),
      ...(policies !== undefined ? { policies } : {}),
      ...(plan_tier !== undefined ? { plan_tier } : {}),
      reset_activation_key: reset_activation_key === true,
    })
    return toCompanyResponse(updated)
  })

  route(app, superAdminEndpoints.companyUsers, { onRequest: guard }, async (request) => ({
    users: await companies(request).users(request.params.id),
  }))

  route(app, superAdminEndpoints.auditLog, { onRequest: guard }, async (request) => ({
    entries: await auditEntries(prisma, { company_id: request.query.company_id, limit: request.query.limit }),
  }))
}
