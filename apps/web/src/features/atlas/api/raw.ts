import { getValidLoginToken } from '../../../lib/auth-token'
import { getActiveShareableToken } from '../../../lib/guest-token-store'
import { apiMessageOf, toApiError } from '../../../lib/api-client'
import { env } from '../../../config/env'

/** A URL of the API (path relative to the API base, e.g. /atlas/generic) with the query, and the shareable token when there is no login (for tiles and downloads). */
export function apiUrl(path: string, query: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) search.set(key, String(value))
  const login = getValidLoginToken()
  const share = login ? null : getActiveShareableToken()
  if (share) search.set('token', share)
  const base = env.apiBaseUrl.endsWith('/') ? env.apiBaseUrl.slice(0, -1) : env.apiBaseUrl
  return `${base}${path}?${search.toString()}`
}

/** The vector-tile URL template of a query ({z}/{x}/{y} kept literal for the map). */
export function tilesUrl(query: Record<string, string | number | boolean | undefined | null>): string {
  return apiUrl('/atlas/tiles/{z}/{x}/{y}.mvt', query).replace(/%7B/gi, '{').replace(/%7D/gi, '}')
}

/** Downloads a file the API answers (CSV export) under the given name. */
export async function downloadFromApi(url: string, fileName: string): Promise<void> {
  const login = getValidLoginToken()
  const response = await fetch(url, { headers: login ? { Authorization: `Bearer ${login}` } : {} })
  if (!response.ok) throw toApiError(await response.json().catch(() => ({})), response)
  saveBlob(await response.blob(), fileName)
}

export function saveBlob(blob: Blob, fileName: string): void {
  const href = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = href
  a.download = fileName
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(href), 1000)
}

export { apiMessageOf }
