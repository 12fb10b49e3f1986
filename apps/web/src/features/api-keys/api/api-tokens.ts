import { endpoints, type EndpointOutput } from '@citrus/contracts'
import { useApiMutation, useApiQuery } from '../../../hooks/use-api'

/** A listed key (spec 1 §3): masked, never the secret. */
export type ApiTokenRow = EndpointOutput<typeof endpoints.admin.listApiTokens>[number]

/** GET /admin/api-token?company_id= (spec 1 §7); nothing is fetched without a company. */
export function useApiTokens(companyId: number | null) {
  return useApiQuery(endpoints.admin.listApiTokens, { query: { company_id: companyId ?? undefined } }, { enabled: companyId !== null })
}

/** POST /admin/api-token { name, company_id } → the key with its `token`; the list refreshes when the dialog closes (spec 1 §4). */
export function useCreateApiToken() {
  return useApiMutation(endpoints.admin.createApiToken)
}

/** DELETE /admin/api-token { id } → { message }; the list refreshes (spec 1 §4). */
export function useDeleteApiToken() {
  return useApiMutation(endpoints.admin.deleteApiToken, { invalidates: [endpoints.admin.listApiTokens] })
}
