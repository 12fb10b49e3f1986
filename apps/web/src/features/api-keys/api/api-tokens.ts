import { ADMIN_PATHS, type ApiToken, type CreatedApiToken } from '@citrus/contracts'
import { api } from '../../../lib/api-client'

/** The fields of a listed key the screen uses (spec 1 §3); the server sends more (owner, company). */
export type ApiTokenRow = Pick<ApiToken, 'id' | 'name' | 'masked_token' | 'created_at' | 'last_used_at'>

/** The server answers a bare list; a { tokens: [...] } envelope is read too. */
function toList(response: unknown): ApiTokenRow[] {
  if (Array.isArray(response)) return response as ApiTokenRow[]
  if (typeof response === 'object' && response !== null && Array.isArray((response as { tokens?: unknown }).tokens)) {
    return (response as { tokens: ApiTokenRow[] }).tokens
  }
  return []
}

/** GET /admin/api-token?company_id= (spec 1 §7). */
export async function getApiTokens(companyId: number): Promise<ApiTokenRow[]> {
  return toList(await api.get<unknown>(ADMIN_PATHS.apiToken, { query: { company_id: companyId } }))
}

/** POST /admin/api-token { name, company_id } → { token, ... }; no token means the max-tokens error. */
export function createApiToken(name: string, companyId: number): Promise<Partial<CreatedApiToken> | undefined> {
  return api.post<Partial<CreatedApiToken> | undefined>(ADMIN_PATHS.apiToken, { name, company_id: companyId })
}

/** DELETE /admin/api-token { id } → { message } (the message is required). */
export function deleteApiToken(id: string): Promise<{ message?: string } | undefined> {
  return api.delete<{ message?: string } | undefined>(ADMIN_PATHS.apiToken, { id })
}
