import {
  COMPANY_MESSAGES,
  SUPER_ADMIN_ROLES,
  auditLogQuerySchema,
  auditLogResponseSchema,
  companyIdParamsSchema,
  companyListResponseSchema,
  companyRecordSchema,
  companyUpdateRecordSchema,
  companyUsersResponseSchema,
  createCompanyRequestSchema,
  errorEnvelopeSchema,
  updateCompanyRequestSchema,
  type CompanyRecordResponse,
} from '@citrus/contracts'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { z } from 'zod'
import { apiActor, listAudit } from '../../domain/audit.js'
import { CompanyService, type CompanyRecord } from '../../domain/companies.js'
import { badRequest } from '../../lib/errors.js'
import { requireRoles, userOf } from '../../plugins/auth.js'
import { documentedValidationError } from '../admin/validation.js'

const tags = ['super-admin']
const security = [{ bearer: [] }]
const denied = { 401: errorEnvelopeSchema, 403: errorEnvelopeSchema }

export function toCompanyResponse(company: CompanyRecord): CompanyRecordResponse {
  return { ...company, created_at: company.created_at.toISOString() }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** PUT accepts { record, reset_activation_key } and the flat form; both end as one record. */
function updateInput(body: unknown) {
  const candidate = isObject(body) && isObject(body.record) ? body.record : body
  const parsed = companyUpdateRecordSchema.safeParse(candidate)
  const reset = isObject(body) ? body.reset_activation_key : undefined
  return { parsed, reset: reset === true, resetValid: reset === undefined || typeof reset === 'boolean' }
}

const fieldErrors = (error: z.ZodError, prefix: string) =>
  error.issues.map((issue) => ({ path: [prefix, ...issue.path.map(String)].join('.'), message: issue.message }))

/** Internal company administration (spec 1 §2 Super Admin Dashboard, §7): role citrus only. */
export const superAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  const { prisma } = app.db
  const guard = requireRoles(SUPER_ADMIN_ROLES)
  const companies = (request: Parameters<typeof userOf>[0]) => new CompanyService(prisma, apiActor(userOf(request)))

  app.get(
    '/company',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'Every company with its activation key and policies, by id',
        security,
        response: { 200: companyListResponseSchema, ...denied },
      },
    },
    async (request) => ({ companies: (await companies(request).list()).map(toCompanyResponse) }),
  )

  app.get(
    '/company/:id',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'One company',
        security,
        params: companyIdParamsSchema,
        response: { 200: companyRecordSchema, 400: errorEnvelopeSchema, ...denied, 404: errorEnvelopeSchema },
      },
    },
    async (request) => toCompanyResponse(await companies(request).get(request.params.id)),
  )

  app.post(
    '/company',
    {
      onRequest: guard,
      attachValidation: true,
      schema: {
        tags,
        summary: `Create a company with its policies (limit null = unlimited credits); a new activation key is issued. Invalid input: '${COMPANY_MESSAGES.fieldsRequired}'`,
        security,
        body: createCompanyRequestSchema,
        response: { 200: companyRecordSchema, 400: errorEnvelopeSchema, ...denied },
      },
    },
    async (request) => {
      const invalid = documentedValidationError(request, [], COMPANY_MESSAGES.fieldsRequired)
      if (invalid) throw invalid
      const { company_name, industry, renewal_cycle_days, policies } = request.body
      return toCompanyResponse(await companies(request).create({ company_name, industry, renewal_cycle_days, policies }))
    },
  )

  app.put(
    '/company',
    {
      onRequest: guard,
      attachValidation: true,
      schema: {
        tags,
        summary:
          'Update a company. Body: { record: { id, company_name, industry, renewal_cycle_days, policies, activation_key }, reset_activation_key } as documented, or the same fields flat next to reset_activation_key. policies, when given, replace all policies; activation_key is ignored (reset_activation_key: true issues a new one)',
        security,
        body: updateCompanyRequestSchema,
        response: { 200: companyRecordSchema, 400: errorEnvelopeSchema, ...denied, 404: errorEnvelopeSchema },
      },
    },
    async (request) => {
      // validated here rather than by the union's error, to report the record's own fields
      const { parsed, reset, resetValid } = updateInput(request.body)
      if (!parsed.success) throw badRequest(COMPANY_MESSAGES.fieldsRequired, fieldErrors(parsed.error, 'body'))
      if (!resetValid) throw badRequest(COMPANY_MESSAGES.fieldsRequired, [{ path: 'body.reset_activation_key', message: 'Expected a boolean' }])
      const invalid = documentedValidationError(request, [], COMPANY_MESSAGES.fieldsRequired)
      if (invalid) throw invalid
      const { id, company_name, industry, renewal_cycle_days, policies } = parsed.data
      const updated = await companies(request).update(id, {
        company_name,
        industry,
        ...(renewal_cycle_days !== undefined ? { renewal_cycle_days } : {}),
        ...(policies !== undefined ? { policies } : {}),
        reset_activation_key: reset,
      })
      return toCompanyResponse(updated)
    },
  )

  app.get(
    '/company/:id/users',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: "A company's users (deactivated ones included, with is_active false), by id",
        security,
        params: companyIdParamsSchema,
        response: { 200: companyUsersResponseSchema, 400: errorEnvelopeSchema, ...denied, 404: errorEnvelopeSchema },
      },
    },
    async (request) => {
      await companies(request).get(request.params.id)
      const users = await prisma.user.findMany({
        where: { company_id: request.params.id },
        orderBy: { id: 'asc' },
        select: { id: true, email: true, role: true, created_at: true, is_active: true },
      })
      return { users: users.map((user) => ({ ...user, created_at: user.created_at.toISOString() })) }
    },
  )

  app.get(
    '/audit-log',
    {
      onRequest: guard,
      schema: {
        tags,
        summary: 'Administration changes (companies, API keys, onboarding e-mails, roles, deactivations), newest first',
        security,
        querystring: auditLogQuerySchema,
        response: { 200: auditLogResponseSchema, 400: errorEnvelopeSchema, ...denied },
      },
    },
    async (request) => {
      const entries = await listAudit(prisma, { company_id: request.query.company_id, limit: request.query.limit })
      return {
        entries: entries.map((entry) => ({
          id: entry.id,
          created_at: entry.created_at.toISOString(),
          source: entry.source === 'cli' ? ('cli' as const) : ('api' as const),
          actor_user_id: entry.actor_user_id,
          actor_email: entry.actor_email,
          company_id: entry.company_id,
          action: entry.action,
          target_type: entry.target_type,
          target_id: entry.target_id,
          details: entry.details,
        })),
      }
    },
  )
}
