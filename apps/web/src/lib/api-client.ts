import { CLIENT_MESSAGES, type FieldError } from '@citrus/contracts'
import { env } from '../config/env'
import { getValidLoginToken } from './auth-token'
import { getActiveShareableToken } from './guest-token-store'

/**
 * The one HTTP client of the web app (spec 1 §7 and §8).
 * - Documented paths are relative to the configured base URL ('/api' by default).
 * - A login token goes as `Authorization: Bearer`; without one, an active shareable token goes as `?token=`.
 * - Identical concurrent requests (method, URL and body) share one fetch.
 * - Every failure becomes an ApiError with the message, code, status, errors and status text.
 */

export type PathParams = Record<string, string | number>
export type QueryValue = string | number | boolean | null | undefined
export type QueryParams = Record<string, QueryValue | readonly (string | number)[]>

export class ApiError extends Error {
  override readonly name = 'ApiError'
  readonly code: string | number
  readonly status: number
  readonly statusText: string
  readonly errors: FieldError[] | undefined
  /** The original error (network or token failure) for logs; never shown to users. */
  readonly systemMessage: string | undefined
  /** true when the message came from the server's error body (not a client default) */
  readonly fromServer: boolean

  constructor(init: {
    message: string
    code: string | number
    status: number
    statusText?: string
    errors?: FieldError[] | undefined
    systemMessage?: string | undefined
    fromServer?: boolean
  }) {
    super(init.message)
    this.code = init.code
    this.status = init.status
    this.statusText = init.statusText ?? ''
    this.errors = init.errors
    this.systemMessage = init.systemMessage
    this.fromServer = init.fromServer ?? false
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError
}

/**
 * The message to show for a failed call: the server's own message, the network message, or the
 * caller's fallback (screens such as sign-in have their own, spec 1 §8).
 */
export function apiMessageOf(error: unknown, fallback: string): string {
  return apiDetailOf(error) ?? fallback
}

/** The server's own message or the network message of a failed call; undefined for anything else. */
export function apiDetailOf(error: unknown): string | undefined {
  return error instanceof ApiError && (error.fromServer || error.code === 0) ? error.message : undefined
}

const TEMPLATE_PARAM = /\{([^}]+)\}/g

/** Fills `{name}` placeholders; every placeholder must be supplied (spec 1 §5). */
export function buildPath(path: string, params: PathParams = {}): string {
  const names = [...path.matchAll(TEMPLATE_PARAM)].map((match) => match[1] as string)
  const missing = names.filter((name) => {
    const value = params[name]
    return value === undefined || value === null || value === ''
  })
  if (missing.length > 0) {
    throw new Error(`Missing required path parameters for ${path}: ${[...new Set(missing)].join(', ')}`)
  }
  return path.replace(TEMPLATE_PARAM, (_, name: string) => encodeURIComponent(String(params[name])))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function toFieldErrors(value: unknown): FieldError[] | undefined {
  if (!Array.isArray(value)) return undefined
  return value.filter(isRecord).map((item) => ({
    path: typeof item.path === 'string' ? item.path : '',
    message: typeof item.message === 'string' ? item.message : '',
  }))
}

/** Normalises an error response body (spec 1 §8). */
export function toApiError(body: unknown, response: { status: number; statusText: string }): ApiError {
  const record = isRecord(body) ? body : {}
  const fromServer = typeof record.message === 'string' && record.message.trim() !== ''
  const message = fromServer ? (record.message as string) : CLIENT_MESSAGES.unexpected
  const code = typeof record.code === 'string' || typeof record.code === 'number' ? record.code : response.status
  const status = typeof record.status === 'number' ? record.status : response.status
  return new ApiError({ message, code, status, statusText: response.statusText, errors: toFieldErrors(record.errors), fromServer })
}

export function networkError(cause: unknown): ApiError {
  return new ApiError({
    message: CLIENT_MESSAGES.network,
    code: 0,
    status: 0,
    systemMessage: cause instanceof Error ? cause.message : String(cause),
  })
}

export function tokenError(cause: unknown): ApiError {
  return new ApiError({
    message: CLIENT_MESSAGES.tokenError,
    code: 'TOKEN_ERROR',
    status: 0,
    systemMessage: cause instanceof Error ? cause.message : String(cause),
  })
}

export interface RequestOptions {
  /** values for `{name}` placeholders in the path */
  params?: PathParams
  query?: QueryParams
  body?: unknown
  headers?: Record<string, string>
  /** a request with its own signal is never merged with another */
  signal?: AbortSignal
}

export interface ApiClientOptions {
  baseUrl: string
  fetch?: typeof fetch
  /** the login token, or null; may throw (reported as 'Token Error') */
  getLoginToken?: () => string | null
  /** the active shareable-link token, or null; may throw (reported as 'Token Error') */
  getShareableToken?: () => string | null
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface ApiClient {
  request<T>(method: HttpMethod, path: string, options?: RequestOptions): Promise<T>
  get<T>(path: string, options?: Omit<RequestOptions, 'body'>): Promise<T>
  post<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<T>
  put<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<T>
  patch<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<T>
  delete<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<T>
  /** the full URL the client would call (base URL, filled path, query) without auth */
  url(path: string, options?: Pick<RequestOptions, 'params' | 'query'>): string
}

function appendQuery(search: URLSearchParams, query: QueryParams | undefined): void {
  if (!query) return
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue
    if (Array.isArray(value)) {
      for (const item of value) search.append(key, String(item))
    } else {
      search.append(key, String(value))
    }
  }
}

function joinUrl(baseUrl: string, path: string): string {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl
  return `${base}${path.startsWith('/') ? path : `/${path}`}`
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined
  const text = await response.text()
  if (text === '') return undefined
  const type = response.headers.get('content-type') ?? ''
  if (type.includes('json')) {
    try {
      return JSON.parse(text) as unknown
    } catch {
      return text
    }
  }
  return text
}

function isBinaryBody(body: unknown): boolean {
  return (
    (typeof FormData !== 'undefined' && body instanceof FormData) ||
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    body instanceof ArrayBuffer ||
    body instanceof URLSearchParams
  )
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const inFlight = new Map<string, Promise<unknown>>()

  function url(path: string, opts: Pick<RequestOptions, 'params' | 'query'> = {}): string {
    const filled = buildPath(path, opts.params)
    const search = new URLSearchParams()
    appendQuery(search, opts.query)
    const qs = search.toString()
    return `${joinUrl(options.baseUrl, filled)}${qs ? `?${qs}` : ''}`
  }

  async function perform(method: HttpMethod, target: string, init: RequestInit): Promise<unknown> {
    const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
    let response: Response
    try {
      response = await doFetch(target, { ...init, method })
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error
      throw networkError(error)
    }
    let body: unknown
    try {
      body = await readBody(response)
    } catch (error) {
      if (!response.ok) throw toApiError(undefined, response)
      throw networkError(error)
    }
    if (!response.ok) throw toApiError(body, response)
    return body
  }

  async function request<T>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<T> {
    const filled = buildPath(path, opts.params)

    let loginToken: string | null
    let shareableToken: string | null
    try {
      loginToken = options.getLoginToken?.() ?? null
      shareableToken = loginToken ? null : (options.getShareableToken?.() ?? null)
    } catch (error) {
      throw tokenError(error)
    }

    const search = new URLSearchParams()
    appendQuery(search, opts.query)
    if (!loginToken && shareableToken && !search.has('token')) search.set('token', shareableToken)
    const qs = search.toString()
    const target = `${joinUrl(options.baseUrl, filled)}${qs ? `?${qs}` : ''}`

    const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers }
    if (loginToken) headers.Authorization = `Bearer ${loginToken}`

    let payload: BodyInit | undefined
    let bodyKey = ''
    if (opts.body !== undefined) {
      if (isBinaryBody(opts.body)) {
        payload = opts.body as BodyInit
      } else {
        payload = JSON.stringify(opts.body)
        bodyKey = payload
        headers['Content-Type'] = 'application/json'
      }
    }

    const init: RequestInit = { headers, body: payload, signal: opts.signal }
    const mergeable = !opts.signal && (payload === undefined || bodyKey !== '')
    if (!mergeable) return (await perform(method, target, init)) as T

    const key = `${method} ${target} ${loginToken ?? ''} ${bodyKey}`
    const existing = inFlight.get(key)
    if (existing) return (await existing) as T
    const pending = perform(method, target, init).finally(() => inFlight.delete(key))
    inFlight.set(key, pending)
    return (await pending) as T
  }

  return {
    request,
    url,
    get: (path, opts) => request('GET', path, opts),
    post: (path, body, opts) => request('POST', path, { ...opts, body }),
    put: (path, body, opts) => request('PUT', path, { ...opts, body }),
    patch: (path, body, opts) => request('PATCH', path, { ...opts, body }),
    delete: (path, body, opts) => request('DELETE', path, { ...opts, body }),
  }
}

/** The app's client: base URL from config, login token from storage, shareable token from the guest session. */
export const api: ApiClient = createApiClient({
  baseUrl: env.apiBaseUrl,
  getLoginToken: () => getValidLoginToken(),
  getShareableToken: () => getActiveShareableToken(),
})
