import { SHARE_URL_TYPES, type ShareableLinkRecord } from '@citrus/contracts'
import type { ShareableLink } from '../../generated/prisma/client.js'
import { signShareToken } from '../../auth/tokens.js'

type QueryValue = string | number | boolean | null
type InitialQuery = string | Record<string, QueryValue | QueryValue[]> | null | undefined

const BASE = 'http://placeholder.invalid'

/** Path and query of a client-supplied path or URL; its scheme and host are dropped (links point at PUBLIC_URL). */
function pathAndQuery(raw: string | null | undefined): { path: string; search: URLSearchParams } | null {
  const value = raw?.trim()
  if (!value) return null
  try {
    const parsed = new URL(value, BASE)
    // an opaque URL (`x:@evil.example`) has a path without a leading slash that would rewrite the host
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.pathname.startsWith('/')) return null
    return { path: parsed.pathname, search: parsed.searchParams }
  } catch {
    return null
  }
}

const trimSlashes = (path: string) => path.replace(/\/+$/, '')

/** The guest's prefix rule of the client (spec 1 §4): a path inside one of client_routes. */
function insideClientRoutes(path: string, clientRoutes: readonly string[]): boolean {
  const target = trimSlashes(path)
  return clientRoutes.some((route) => {
    const allowed = trimSlashes(route)
    return allowed !== '' && (target === allowed || target.startsWith(`${allowed}/`))
  })
}

/**
 * Path and query the link opens. The path: incoming_url, else the shared page (url) when the link allows it,
 * else the first client route, else /. The query keeps the shared page's parameters (url), then those of
 * incoming_url, so a link to the recommendations of a search carries that search.
 */
function targetOf(link: Pick<ShareableLink, 'url' | 'incoming_url' | 'client_routes'>): { path: string; search: URLSearchParams } {
  const page = pathAndQuery(link.url)
  const incoming = pathAndQuery(link.incoming_url)
  const path =
    incoming?.path ??
    (page && insideClientRoutes(page.path, link.client_routes) ? page.path : null) ??
    pathAndQuery(link.client_routes[0])?.path ??
    '/'
  const search = new URLSearchParams(page?.search)
  for (const [key] of incoming?.search ?? []) search.delete(key)
  for (const [key, value] of incoming?.search ?? []) search.append(key, value)
  return { path, search }
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

/**
 * `${PUBLIC_URL}${path}?${query}&token=<signed token>`: the origin is always the configured PUBLIC_URL, never
 * the Host of the request (a forged Host must not turn links into links to another site).
 */
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
