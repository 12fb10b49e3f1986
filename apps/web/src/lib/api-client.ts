import {
  CLIENT_MESSAGES,
  type EndpointDefinition,
  type EndpointInput,
  type EndpointOutput,
  type FieldError,
  type HttpMethod,
} from '@citrus/contracts'
import { env } from '../config/env'
import { getValidLoginToken } from './auth-token'
import { getActiveShareableToken } from './guest-token-store'

/**
 * The one HTTP client of the web app (spec 1 §7 and §8).
 * - Documented paths are relative to the configured base URL ('/api' by default).
 * - A login token goes as `Authorization: Bearer`; without one, an active shareable token goes as `?token=`.
 * - Endpoints are called through `api(endpoint, input)` with the definitions of @citrus/contracts.
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
  query?: QueryParams
  body?: unknown
  headers?: Record<string, string>
  signal?: AbortSignal
  /**
   * 'blob': a success answer is a file (a PDF, a CSV) and comes back as a Blob; 'stream': its body as it arrives (a
   * ReadableStream of bytes: server-sent events); errors are read as JSON as always
   */
  responseType?: 'json' | 'blob' | 'stream'
}

export interface ApiClientOptions {
  baseUrl: string
  fetch?: typeof fetch
  /** the login token, or null; may throw (reported as 'Token Error') */
  getLoginToken?: () => string | null
  /** the active shareable-link token, or null; may throw (reported as 'Token Error') */
  getShareableToken?: () => string | null
}

/**
 * The transport under `api()`: one request to a filled path, answered with the parsed body (unknown:
 * only `api()` gives it a type, from the endpoint's response schema). De-duplication of identical
 * requests is TanStack Query's job, not the transport's.
 */
export interface ApiClient {
  request(method: HttpMethod, path: string, options?: RequestOptions): Promise<unknown>
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
  async function request(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<unknown> {
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
    const target = `${joinUrl(options.baseUrl, path)}${qs ? `?${qs}` : ''}`

    const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers }
    if (loginToken) headers.Authorization = `Bearer ${loginToken}`

    let payload: BodyInit | undefined
    if (opts.body !== undefined) {
      if (isBinaryBody(opts.body)) {
        payload = opts.body as BodyInit
      } else {
        payload = JSON.stringify(opts.body)
        headers['Content-Type'] = 'application/json'
      }
    }

    const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
    let response: Response
    try {
      response = await doFetch(target, { method, headers, body: payload, signal: opts.signal })
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error
      throw networkError(error)
    }
    if (response.ok && opts.responseType === 'stream') {
      if (!response.body) throw toApiError(undefined, response)
      return response.body
    }
    if (response.ok && opts.responseType === 'blob') {
      try {
        return await response.blob()
      } catch (error) {
        throw networkError(error)
      }
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

  return { request }
}

/** The code of the ApiError thrown when a success body does not match the endpoint's response schema. */
export const INVALID_RESPONSE = 'INVALID_RESPONSE'

/** true for a success response whose body broke the endpoint's contract (spec 1 §5: "not successful" cases). */
export function isInvalidResponse(error: unknown): boolean {
  return error instanceof ApiError && error.code === INVALID_RESPONSE
}

/** `METHOD /documented/path`, the name of an endpoint in messages and mock keys. */
export function endpointName(endpoint: Pick<EndpointDefinition, 'method' | 'path'>): string {
  return `${endpoint.method} ${endpoint.path}`
}

/** zod issues as `path: message; ...` for logs and test failures. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ')
}

export interface CallOptions {
  signal?: AbortSignal
  headers?: Record<string, string>
}

/** Input may be left out when the endpoint needs none (every part optional). */
export type EndpointArgs<D extends EndpointDefinition> =
  Partial<EndpointInput<D>> extends EndpointInput<D>
    ? [input?: EndpointInput<D>, options?: CallOptions]
    : [input: EndpointInput<D>, options?: CallOptions]

/** Calls an endpoint of @citrus/contracts: `api(endpoint, { params, query, body })` → its typed response. */
export type Api = <D extends EndpointDefinition>(endpoint: D, ...args: EndpointArgs<D>) => Promise<EndpointOutput<D>>

/**
 * Binds the transport to the endpoint definitions: fills the `{name}` parameters, adds the query and
 * the JSON body, and parses the success body with the endpoint's response schema.
 *
 * The response is parsed in every mode, not only in development: the spec's "not successful" cases
 * (a sign-up answer without its message, a key without its token...) are responses that break the
 * contract, and parsing makes the inferred type true at run time. A mismatch is an ApiError with code
 * INVALID_RESPONSE, the generic message, and the endpoint and zod issues in `systemMessage`.
 * Request inputs are not parsed here: their types come from the schemas, the server validates them,
 * and the web tests' mock API checks each one against the same schema.
 */
export function createApi(client: ApiClient): Api {
  const call = createEndpointCaller(client)
  return (endpoint, ...[input, options]) => call(endpoint, input, options)
}

/** `api()` with a plain signature, for generic code (the query hooks) where the input is already typed. */
export type EndpointCaller = <D extends EndpointDefinition>(
  endpoint: D,
  input: EndpointInput<D> | undefined,
  options?: CallOptions,
) => Promise<EndpointOutput<D>>

/** One call of an endpoint through the transport: its path filled from the input's params, its query and body. */
function requestEndpoint(
  client: ApiClient,
  endpoint: EndpointDefinition,
  input: unknown,
  options: CallOptions | undefined,
  responseType?: RequestOptions['responseType'],
): Promise<unknown> {
  if (endpoint.mount === 'root') throw new Error(`${endpointName(endpoint)} is not served under the API base URL`)
  const parts = (input ?? {}) as { params?: PathParams; query?: QueryParams; body?: unknown }
  return client.request(endpoint.method, buildPath(endpoint.path, parts.params), {
    query: parts.query,
    body: parts.body,
    signal: options?.signal,
    headers: options?.headers,
    ...(responseType ? { responseType } : {}),
  })
}

/** A success body parsed with the endpoint's response schema; a mismatch is the INVALID_RESPONSE ApiError. */
function parseResponse<D extends EndpointDefinition>(endpoint: D, body: unknown): EndpointOutput<D> {
  const parsed = endpoint.response.safeParse(body)
  if (!parsed.success) {
    const systemMessage = `The response of ${endpointName(endpoint)} does not match its contract: ${describeIssues(parsed.error.issues)}`
    // a developer sees the drift at once; tests see it through the mock API's own check
    if (import.meta.env.DEV && import.meta.env.MODE !== 'test') console.warn(systemMessage)
    throw new ApiError({ message: CLIENT_MESSAGES.unexpected, code: INVALID_RESPONSE, status: 0, systemMessage })
  }
  return parsed.data as EndpointOutput<D>
}

export function createEndpointCaller(client: ApiClient): EndpointCaller {
  return async (endpoint, input, options) => parseResponse(endpoint, await requestEndpoint(client, endpoint, input, options))
}

/** Calls an endpoint whose success answer is a file → the file as a Blob (not parsed: its schema documents the media type). */
export type EndpointDownloader = <D extends EndpointDefinition>(
  endpoint: D,
  input: EndpointInput<D> | undefined,
  options?: CallOptions,
) => Promise<Blob>

export function createEndpointDownloader(client: ApiClient): EndpointDownloader {
  return async (endpoint, input, options) => (await requestEndpoint(client, endpoint, input, options, 'blob')) as Blob
}

/** Calls an endpoint that answers a stream (server-sent events) → the body's bytes as they arrive, through the same transport. */
export type EndpointStreamer = <D extends EndpointDefinition>(
  endpoint: D,
  input: EndpointInput<D> | undefined,
  options?: CallOptions,
) => Promise<ReadableStream<Uint8Array>>

export function createEndpointStreamer(client: ApiClient): EndpointStreamer {
  return async (endpoint, input, options) =>
    (await requestEndpoint(client, endpoint, input, options, 'stream')) as ReadableStream<Uint8Array>
}

/**
 * Calls an endpoint whose request is a multipart form (the AI Hub's documents: its definition has no JSON body) with
 * that form as the body → its typed response, parsed with the endpoint's response schema as `api()` parses it.
 */
export type EndpointUploader = <D extends EndpointDefinition>(
  endpoint: D,
  form: FormData,
  input?: Omit<EndpointInput<D>, 'body'>,
  options?: CallOptions,
) => Promise<EndpointOutput<D>>

export function createEndpointUploader(client: ApiClient): EndpointUploader {
  return async (endpoint, form, input, options) =>
    parseResponse(endpoint, await requestEndpoint(client, endpoint, { ...input, body: form }, options))
}

/**
 * The URL of an endpoint for the browser or the map to fetch itself (vector tiles): the base URL, the path with the
 * given parameters filled and any other kept as its `{name}` template (MapLibre fills {z}/{x}/{y}), the query, and the
 * shareable token when there is no login (the map sends its credentials with each request itself: authorizeApiRequest).
 */
export type EndpointUrl = <D extends EndpointDefinition>(
  endpoint: D,
  input?: { params?: Partial<PathParams>; query?: QueryParams },
) => string

export function createEndpointUrl(options: Pick<ApiClientOptions, 'baseUrl' | 'getLoginToken' | 'getShareableToken'>): EndpointUrl {
  return (endpoint, input = {}) => {
    const path = endpoint.path.replace(TEMPLATE_PARAM, (template, name: string) => {
      const value = input.params?.[name]
      return value === undefined || value === '' ? template : encodeURIComponent(String(value))
    })
    const search = new URLSearchParams()
    appendQuery(search, input.query)
    const share = options.getLoginToken?.() ? null : (options.getShareableToken?.() ?? null)
    if (share && !search.has('token')) search.set('token', share)
    const qs = search.toString()
    return `${joinUrl(options.baseUrl, path)}${qs ? `?${qs}` : ''}`
  }
}

/** The credentials of a request to the API: the login token, and the shareable token (sent only without a login). */
export interface RequestCredentials {
  loginToken: string | null
  shareableToken: string | null
}

/** A request as authorised by authorizeRequest: its URL, and the headers to add (MapLibre's RequestParameters). */
export interface AuthorizedRequest {
  url: string
  headers?: Record<string, string>
}

/**
 * Authorises a request the browser or the map sends itself (MapLibre's transformRequest), as `request()` does: to the
 * API under `apiBaseUrl` (absolute), the login token as `Authorization: Bearer`, else the shareable token as `?token=`
 * (unless the URL has one); any other URL (a hosted MAP_STYLE_URL style) is left alone.
 */
export function authorizeRequest(url: string, apiBaseUrl: string, credentials: RequestCredentials): AuthorizedRequest {
  if (!url.startsWith(`${apiBaseUrl}/`)) return { url }
  if (credentials.loginToken) return { url, headers: { Authorization: `Bearer ${credentials.loginToken}` } }
  if (credentials.shareableToken) {
    const target = new URL(url)
    if (!target.searchParams.has('token')) target.searchParams.set('token', credentials.shareableToken)
    return { url: target.href }
  }
  return { url }
}

/** A same-origin absolute URL for a path ('/api/...'); MapLibre's workers need absolute tile URLs. */
export function absoluteUrl(path: string, origin: string): string {
  if (/^https?:\/\//.test(path)) return path
  // concatenated, not resolved with URL: a tile template's {z}/{x}/{y} must stay unencoded
  return `${origin.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}

/** A base URL made absolute against an origin ('/api' → https://host/api), without a trailing slash. */
export function absoluteBaseUrl(baseUrl: string, origin: string): string {
  return absoluteUrl(baseUrl, origin).replace(/\/+$/, '')
}

/** The app's transport: base URL from config, login token from storage, shareable token from the guest session. */
const appCredentials = {
  baseUrl: env.apiBaseUrl,
  getLoginToken: () => getValidLoginToken(),
  getShareableToken: () => getActiveShareableToken(),
}
export const apiClient: ApiClient = createApiClient(appCredentials)

/** The app's one way to call the server: `api(endpoints.x, input)`. */
export const api: Api = createApi(apiClient)
/** The same call with a plain signature (see EndpointCaller). */
export const callEndpoint: EndpointCaller = createEndpointCaller(apiClient)
/** A file the API answers (the referral letter PDF, the Atlas CSV export), through the same transport. */
export const downloadEndpoint: EndpointDownloader = createEndpointDownloader(apiClient)
/** A streamed answer (the AI Hub's generation), through the same transport. */
export const streamEndpoint: EndpointStreamer = createEndpointStreamer(apiClient)
/** An endpoint's URL for the browser or the map (see EndpointUrl). */
export const endpointUrl: EndpointUrl = createEndpointUrl(appCredentials)
/** A multipart upload (the AI Hub's documents), through the same transport, its answer parsed (see EndpointUploader). */
export const uploadEndpoint: EndpointUploader = createEndpointUploader(apiClient)

/** The app's API base URL, absolute against the page's origin: what the map's URLs start with (its worker needs them absolute). */
export function absoluteApiBaseUrl(): string {
  return absoluteBaseUrl(env.apiBaseUrl, window.location.origin)
}

/** authorizeRequest with the app's API base URL and the credentials of the moment (the map's transformRequest). */
export function authorizeApiRequest(url: string): AuthorizedRequest {
  return authorizeRequest(url, absoluteApiBaseUrl(), {
    loginToken: getValidLoginToken(),
    shareableToken: getActiveShareableToken(),
  })
}
