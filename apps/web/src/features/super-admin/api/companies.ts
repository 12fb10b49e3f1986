import { endpoints, type EndpointInput, type EndpointOutput } from '@citrus/contracts'
import { useApiMutation, useApiQuery } from '../../../hooks/use-api'

const superAdmin = endpoints.superAdmin

/** A company with its activation key and policies (spec 1 §3). */
export type Company = EndpointOutput<typeof superAdmin.getCompany>
export type CompanyUserRow = EndpointOutput<typeof superAdmin.companyUsers>['users'][number]
export type CreateCompanyRequest = EndpointInput<typeof superAdmin.createCompany>['body']
/** The documented PUT /super-admin/company body (spec 1 §7): the record and whether to issue a new activation key. */
export type UpdateCompanyRequest = Extract<EndpointInput<typeof superAdmin.updateCompany>['body'], { record: unknown }>

/** GET /super-admin/company → { companies }; a response without the list fails with an INVALID_RESPONSE error. */
export function useCompanies() {
  return useApiQuery(superAdmin.listCompanies, {}, { select: (response) => response.companies })
}

/** GET /super-admin/company/{id}. */
export function useCompany(id: number) {
  return useApiQuery(superAdmin.getCompany, { params: { id } })
}

/** POST /super-admin/company → the new company (with its activation key); the list refreshes. */
export function useCreateCompany() {
  return useApiMutation(superAdmin.createCompany, { invalidates: [superAdmin.listCompanies] })
}

/** PUT /super-admin/company { record, reset_activation_key } → the updated company; list and record refresh. */
export function useUpdateCompany() {
  return useApiMutation(superAdmin.updateCompany, { invalidates: [superAdmin.listCompanies, superAdmin.getCompany] })
}

/** GET /super-admin/company/{id}/users → { users }. */
export function useCompanyUsers(id: string) {
  return useApiQuery(superAdmin.companyUsers, { params: { id } }, { select: (response) => response.users })
}
