import {
  SUPER_ADMIN_PATHS,
  type CompanyRecordResponse,
  type CompanyUser,
  type CreateCompanyRequest,
  type ProductGroup,
} from '@citrus/contracts'
import { api } from '../../../lib/api-client'

/** A company as the dashboard uses it (spec 1 §3). */
export type Company = Pick<CompanyRecordResponse, 'id' | 'company_name' | 'industry' | 'renewal_cycle_days' | 'activation_key' | 'policies'>
export type CompanyUserRow = Pick<CompanyUser, 'id' | 'email' | 'role' | 'created_at'> & { is_active?: boolean }

export interface CompanyPolicyInput {
  product_group: ProductGroup
  limit: number | null
}

/** PUT /super-admin/company body (spec 1 §7): the record and whether to issue a new activation key. */
export interface UpdateCompanyRequest {
  record: {
    id: number
    company_name: string
    industry: string
    renewal_cycle_days: number
    policies: CompanyPolicyInput[]
    activation_key: string | null
  }
  reset_activation_key: boolean
}

export class MissingListError extends Error {}

/** GET /super-admin/company → { companies }; a response without the list is an error of its own. */
export async function getCompanies(): Promise<Company[]> {
  const response = await api.get<{ companies?: unknown } | undefined>(SUPER_ADMIN_PATHS.companies)
  if (!Array.isArray(response?.companies)) throw new MissingListError('companies missing from the response')
  return response.companies as Company[]
}

/** GET /super-admin/company/{id}. */
export function getCompany(id: number): Promise<Company> {
  return api.get<Company>(SUPER_ADMIN_PATHS.company, { params: { id } })
}

/** POST /super-admin/company → the new company (with its activation key). */
export function createCompany(body: CreateCompanyRequest): Promise<Company | undefined> {
  return api.post<Company | undefined>(SUPER_ADMIN_PATHS.companies, body)
}

/** PUT /super-admin/company { record, reset_activation_key } → the updated company. */
export function updateCompany(body: UpdateCompanyRequest): Promise<Company | undefined> {
  return api.put<Company | undefined>(SUPER_ADMIN_PATHS.companies, body)
}

/** GET /super-admin/company/{id}/users → { users }. */
export async function getCompanyUsers(id: string | number): Promise<CompanyUserRow[]> {
  const response = await api.get<{ users?: unknown } | undefined>(SUPER_ADMIN_PATHS.companyUsers, { params: { id } })
  if (!Array.isArray(response?.users)) throw new MissingListError('users missing from the response')
  return response.users as CompanyUserRow[]
}
