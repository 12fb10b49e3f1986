import { SHARE_URL_TYPES, type ShareableLinkRecord } from '@citrus/contracts'
import type { ShareableLink } from '../../generated/prisma/client.js'
import { signShareToken } from '../../auth/tokens.js'

type QueryValue = string | number | boolean | null
type InitialQuery = string | Record<string, QueryValue | QueryValue[]> | null | undefined

/** Path (and query) the link opens: incoming_url, else the first client route, else /. */
function targetOf(link: Pick<ShareableLink, 'incoming_url' | 'client_routes'>): { path: string; search: URLSearchParams } {
  const raw = link.incoming_url?.trim() || link.client_routes[0] || '/'
  // an absolute URL from the client keeps only its path and query: links always point at this server
  const parsed = new URL(raw, 'http://placeholder.invalid')
  return { path: parsed.pathname, search: parsed.searchParams }
}

function appendInitialQuery(search: URLSearchParams, params: InitialQuery) {
  if (!params) return
  if (typeof params === 'string') {
    for (const [key, value] of new URLSearchParams(params.replace(/^\?/, ''))) search.append(key, value)
    return
  }
  for (const [key, value] of Object.entries(params)) {
    if (value === null) continue
    search.set(key, Array.isArray(value) ? value.filter((item) => item !== null).join(',') : String(value))
  }
}

/** `${PUBLIC_URL}${incoming_url or first client route}?…initial_query_params&token=<signed token>` */
export async function linkUrl(secret: string, publicUrl: string, link: ShareableLink): Promise<string> {
  const token = await signShareToken(secret, link)
  const { path, search } = targetOf(link)
  appendInitialQuery(search, link.initial_query_params as InitialQuery)
  search.delete('token')
  search.set('token', token)
  return `${publicUrl}${path}?${search.toString()}`
}

export function isLinkExpired(link: Pick<ShareableLink, 'revoked_at' | 'expires_at'>, now = Date.now()): boolean {
  return link.revoked_at !== null || (link.expires_at !== null && link.expires_at.getTime() <= now)
}

export function urlTypeOf(value: string): (typeof SHARE_URL_TYPES)[number] {
  return (SHARE_URL_TYPES as readonly string[]).includes(value) ? (value as (typeof SHARE_URL_TYPES)[number]) : 'private'
}

export async function toRecord(secret: string, publicUrl: string, link: ShareableLink): Promise<ShareableLinkRecord> {
  return {
    id: link.id,
    url: await linkUrl(secret, publicUrl, link),
    source_url: link.url,
    url_type: urlTypeOf(link.url_type),
    role: link.role,
    expiration_days: link.expiration_days,
    expires_at: link.expires_at?.toISOString() ?? null,
    client_routes: link.client_routes,
    api_endpoints: link.api_endpoints,
    incoming_url: link.incoming_url,
    authorized_user_ids: link.authorized_user_ids.length > 0 ? link.authorized_user_ids : null,
    invite_email: link.invite_email,
    invite_phone: link.invite_phone,
    requires_email_verification: link.requires_email_verification,
    requires_phone_verification: link.requires_phone_verification,
    requires_account_creation: link.requires_account_creation,
    created_by_user_id: link.created_by_user_id,
    created_at: link.created_at.toISOString(),
    revoked_at: link.revoked_at?.toISOString() ?? null,
    is_expired: isLinkExpired(link),
  }
}
