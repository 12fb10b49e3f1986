import {
  companyIdParamsSchema,
  companyIdQuerySchema,
  companyUsersResponseSchema,
  defineEndpoint,
  deleteApiTokenRequestSchema,
  deleteApiTokenResponseSchema,
  loginRequestSchema,
  loginResponseSchema,
  endpoints,
} from '@citrus/contracts'
import { describe, expect, expectTypeOf, it, vi } from 'vitest'
import { resolveApiBaseUrl } from '../config/env'
import {
  ApiError,
  INVALID_RESPONSE,
  type EndpointArgs,
  absoluteBaseUrl,
  buildPath,
  createApi,
  createApiClient,
  createEndpointDownloader,
  createEndpointStreamer,
  createEndpointUploader,
  createEndpointUrl,
  isInvalidResponse,
  toApiError,
} from './api-client'

// Endpoints built from the contract schemas, so these tests do not depend on the area definitions.
const login = defineEndpoint({
  method: 'POST',
  path: '/users/login',
  summary: 'Sign in',
  tags: ['users'],
  body: loginRequestSchema,
  response: loginResponseSchema,
  errors: [400, 401],
})
const companyUsers = defineEndpoint({
  method: 'GET',
  path: '/super-admin/company/{id}/users',
  summary: "A company's users",
  tags: ['super-admin'],
  params: companyIdParamsSchema,
  response: companyUsersResponseSchema,
  errors: [404],
})
const revokeKey = defineEndpoint({
  method: 'DELETE',
  path: '/admin/api-token',
  summary: 'Revoke a key',
  tags: ['admin'],
  query: companyIdQuerySchema,
  body: deleteApiTokenRequestSchema,
  response: deleteApiTokenResponseSchema,
  errors: [404],
})

const letter = endpoints.careSelect.referralLetter
const generateStream = endpoints.aiHub.generateStream
const tile = endpoints.atlas.tile

function jsonResponse(body: unknown, init: { status?: number; statusText?: string } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    statusText: init.statusText ?? 'OK',
    headers: { 'content-type': 'application/json' },
  })
}

function setup(options: { login?: string | null; shareable?: string | null; baseUrl?: string } = {}) {
  const fetchMock = vi.fn<typeof fetch>(async () => jsonResponse({ ok: true }))
  const client = createApiClient({
    baseUrl: options.baseUrl ?? '/api',
    fetch: fetchMock,
    getLoginToken: () => options.login ?? null,
    getShareableToken: () => options.shareable ?? null,
  })
  const api = createApi(client)
  const call = (index = 0) => {
    const args = fetchMock.mock.calls[index]
    if (!args) throw new Error(`no fetch call #${index}`)
    const [url, init] = args
    return { url: String(url), init: init ?? {}, headers: new Headers(init?.headers) }
  }
  return { client, api, fetchMock, call }
}

async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof ApiError) return error
    throw error
  }
  throw new Error('expected a rejection')
}

describe('base URL', () => {
  it("defaults to '/api' and trims a trailing slash", () => {
    expect(resolveApiBaseUrl(undefined)).toBe('/api')
    expect(resolveApiBaseUrl('')).toBe('/api')
    expect(resolveApiBaseUrl('https://api.example.com/v1/')).toBe('https://api.example.com/v1')
  })

  it('resolves documented paths relative to the base URL', async () => {
    const { client, call } = setup()
    await client.request('POST', '/users/login', { body: { email: 'a@b.co', password: 'x' } })
    expect(call().url).toBe('/api/users/login')
    expect(call().init.method).toBe('POST')
    expect(call().init.body).toBe(JSON.stringify({ email: 'a@b.co', password: 'x' }))
    expect(call().headers.get('content-type')).toBe('application/json')
  })

  it('works with an absolute base URL and query parameters', async () => {
    const { client, call } = setup({ baseUrl: 'https://api.example.com/' })
    await client.request('GET', '/admin/api-token', { query: { company_id: 7, skip: undefined } })
    expect(call().url).toBe('https://api.example.com/admin/api-token?company_id=7')
  })
})

describe('authentication', () => {
  it('sends a login token as a Bearer header and no token query parameter', async () => {
    const { client, call } = setup({ login: 'login.jwt.token', shareable: 'share.jwt.token' })
    await client.request('GET', '/users/info')
    expect(call().headers.get('authorization')).toBe('Bearer login.jwt.token')
    expect(call().url).toBe('/api/users/info')
  })

  it('sends an active shareable token as the token query parameter when there is no login token', async () => {
    const { client, call } = setup({ shareable: 'share.jwt.token' })
    await client.request('GET', '/care-select/rankings', { query: { zip: '98101' } })
    expect(call().headers.get('authorization')).toBeNull()
    expect(call().url).toBe('/api/care-select/rankings?zip=98101&token=share.jwt.token')
  })

  it('sends neither without tokens', async () => {
    const { client, call } = setup()
    await client.request('GET', '/company/products')
    expect(call().headers.get('authorization')).toBeNull()
    expect(call().url).toBe('/api/company/products')
  })

  it("reports a failure to read the token as 'Token Error'", async () => {
    const fetchMock = vi.fn<typeof fetch>()
    const client = createApiClient({
      baseUrl: '/api',
      fetch: fetchMock,
      getLoginToken: () => {
        throw new Error('storage blocked')
      },
    })
    const error = await caught(client.request('GET', '/users/info'))
    expect(error.message).toBe('Token Error')
    expect(error.systemMessage).toBe('storage blocked')
    expect(fetchMock).not.toHaveBeenCalled()
  })
})

describe('error normalisation (spec 1 §8)', () => {
  it('turns the server envelope into an ApiError with message, code, status, errors and status text', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () =>
      jsonResponse(
        {
          message: 'Email is not valid',
          code: 'VALIDATION_ERROR',
          status: 400,
          errors: [{ path: 'body.email', message: 'Email is not valid' }],
        },
        { status: 400, statusText: 'Bad Request' },
      ),
    )
    const client = createApiClient({ baseUrl: '/api', fetch: fetchMock })
    const error = await caught(client.request('POST', '/users/user-signup', { body: {} }))
    expect(error).toBeInstanceOf(ApiError)
    expect(error.message).toBe('Email is not valid')
    expect(error.code).toBe('VALIDATION_ERROR')
    expect(error.status).toBe(400)
    expect(error.statusText).toBe('Bad Request')
    expect(error.errors).toEqual([{ path: 'body.email', message: 'Email is not valid' }])
  })

  it("defaults the message to 'An unexpected error occurred.' and status/code to the HTTP status", async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => new Response('<html>oops</html>', { status: 502, statusText: 'Bad Gateway' }))
    const client = createApiClient({ baseUrl: '/api', fetch: fetchMock })
    const error = await caught(client.request('GET', '/users/info'))
    expect(error.message).toBe('An unexpected error occurred.')
    expect(error.status).toBe(502)
    expect(error.code).toBe(502)
    expect(error.statusText).toBe('Bad Gateway')
    expect(error.errors).toBeUndefined()
  })

  it('keeps partial bodies (only code, only status)', () => {
    const error = toApiError({ code: 'RATE_LIMITED' }, { status: 429, statusText: 'Too Many Requests' })
    expect(error.message).toBe('An unexpected error occurred.')
    expect(error.code).toBe('RATE_LIMITED')
    expect(error.status).toBe(429)
  })

  it("reports a network failure as 'Network Error - Please check your internet connection.' with code 0", async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => {
      throw new TypeError('Failed to fetch')
    })
    const client = createApiClient({ baseUrl: '/api', fetch: fetchMock })
    const error = await caught(client.request('GET', '/users/info'))
    expect(error.message).toBe('Network Error - Please check your internet connection.')
    expect(error.code).toBe(0)
    expect(error.status).toBe(0)
  })

  it('returns undefined for empty success bodies', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => new Response(null, { status: 204 }))
    const client = createApiClient({ baseUrl: '/api', fetch: fetchMock })
    await expect(client.request('DELETE', '/admin/api-token', { body: { id: 1 } })).resolves.toBeUndefined()
  })
})

describe('path templates', () => {
  it('fills parameters', () => {
    expect(buildPath('/company/{companyId}/users', { companyId: 3 })).toBe('/company/3/users')
    expect(buildPath('/shareable-url/{share_id}/revoke', { share_id: 'a b' })).toBe('/shareable-url/a%20b/revoke')
    expect(buildPath('/users/login')).toBe('/users/login')
  })

  it("throws 'Missing required path parameters for {path}: {names}'", () => {
    expect(() => buildPath('/company/{companyId}/users', {})).toThrow(
      new Error('Missing required path parameters for /company/{companyId}/users: companyId'),
    )
    expect(() => buildPath('/a/{x}/b/{y}', { x: '' })).toThrow('Missing required path parameters for /a/{x}/b/{y}: x, y')
  })

  it('is applied by api() with the params of the input', async () => {
    const { api, call, fetchMock } = setup()
    fetchMock.mockResolvedValueOnce(jsonResponse({ users: [] }))
    await api(companyUsers, { params: { id: 12 } })
    expect(call().url).toBe('/api/super-admin/company/12/users')
    // a caller that bypasses the types still gets the documented error, and nothing is fetched
    await expect(api(companyUsers, { params: {} } as never)).rejects.toThrow(
      'Missing required path parameters for /super-admin/company/{id}/users: id',
    )
    expect(fetchMock).toHaveBeenCalledTimes(1)
  })
})

describe('api(endpoint, input)', () => {
  it('sends the method, the JSON body and the query of the definition and returns the typed response', async () => {
    const { api, call, fetchMock } = setup({ login: 'login.jwt.token' })
    fetchMock.mockResolvedValueOnce(jsonResponse({ message: 'Token deleted' }))
    const result = await api(revokeKey, { query: { company_id: 3 }, body: { id: 'key-1' } })
    expectTypeOf(result).toEqualTypeOf<{ message: string }>()
    expect(result).toEqual({ message: 'Token deleted' })
    expect(call().init.method).toBe('DELETE')
    expect(call().url).toBe('/api/admin/api-token?company_id=3')
    expect(call().init.body).toBe(JSON.stringify({ id: 'key-1' }))
    expect(call().headers.get('authorization')).toBe('Bearer login.jwt.token')
  })

  it('returns the parsed body, not the raw one (unknown keys are stripped by the schema)', async () => {
    const { api, fetchMock } = setup()
    fetchMock.mockResolvedValueOnce(jsonResponse({ token: 'jwt', extra: 'not in the contract' }))
    await expect(api(login, { body: { email: 'a@b.co', password: 'x' } })).resolves.toEqual({ token: 'jwt' })
  })

  it('types the input from the definition', () => {
    type LoginArgs = EndpointArgs<typeof login>
    expectTypeOf<LoginArgs[0]>().toEqualTypeOf<{ params?: never } & { query?: never } & { body: { email: string; password: string } }>()
  })

  it('turns a success body that breaks the contract into an INVALID_RESPONSE ApiError naming the endpoint and the field', async () => {
    const { api, fetchMock } = setup()
    fetchMock.mockResolvedValueOnce(jsonResponse({ jwt: 'wrong-field' }))
    const error = await caught(api(login, { body: { email: 'a@b.co', password: 'x' } }))
    expect(isInvalidResponse(error)).toBe(true)
    expect(error.code).toBe(INVALID_RESPONSE)
    expect(error.message).toBe('An unexpected error occurred.')
    expect(error.fromServer).toBe(false)
    expect(error.systemMessage).toMatch(/^The response of POST \/users\/login does not match its contract: token: /)
  })

  it('treats an empty body as a mismatch when the contract expects one', async () => {
    const { api, fetchMock } = setup()
    fetchMock.mockResolvedValueOnce(new Response(null, { status: 204 }))
    expect(isInvalidResponse(await caught(api(revokeKey, { body: { id: 'k' } })))).toBe(true)
  })

  it('passes error envelopes through as ApiErrors, not as contract mismatches', async () => {
    const { api, fetchMock } = setup()
    fetchMock.mockResolvedValueOnce(
      jsonResponse({ message: 'Invalid credentials', code: 'UNAUTHORIZED', status: 401 }, { status: 401, statusText: 'Unauthorized' }),
    )
    const error = await caught(api(login, { body: { email: 'a@b.co', password: 'x' } }))
    expect(isInvalidResponse(error)).toBe(false)
    expect(error.message).toBe('Invalid credentials')
    expect(error.status).toBe(401)
  })

  it('forwards the abort signal to fetch', async () => {
    const { api, call, fetchMock } = setup()
    fetchMock.mockResolvedValueOnce(jsonResponse({ users: [] }))
    const controller = new AbortController()
    await api(companyUsers, { params: { id: 1 } }, { signal: controller.signal })
    expect(call().init.signal).toBe(controller.signal)
  })

  it('does not merge identical concurrent calls (TanStack Query de-duplicates queries)', async () => {
    const { api, fetchMock } = setup()
    fetchMock.mockImplementation(async () => jsonResponse({ users: [] }))
    await Promise.all([api(companyUsers, { params: { id: 1 } }), api(companyUsers, { params: { id: 1 } })])
    expect(fetchMock).toHaveBeenCalledTimes(2)
  })
})

describe('files and URLs through the client (issue 35 item 5)', () => {
  const letterBody = { patient_name: 'Ann Lee', dob: '1980-01-02', selected_npis: ['1234567890'] }

  it('downloadEndpoint sends the JSON body with the login token and returns the file as a Blob, unparsed', async () => {
    const { client, fetchMock, call } = setup({ login: 'jwt-1' })
    fetchMock.mockResolvedValueOnce(new Response('%PDF-1.7 x', { status: 200, headers: { 'content-type': 'application/pdf' } }))
    const blob = await createEndpointDownloader(client)(letter, { body: letterBody }, { headers: { Accept: 'application/pdf' } })
    expect(await blob.text()).toBe('%PDF-1.7 x')
    expect(call().url).toBe('/api/care-select/referral-letter')
    expect(call().init.method).toBe('POST')
    expect(call().init.body).toBe(JSON.stringify(letterBody))
    expect(call().headers.get('authorization')).toBe('Bearer jwt-1')
    expect(call().headers.get('accept')).toBe('application/pdf')
  })

  it('downloadEndpoint turns an error answer into the ApiError of the envelope, and a network failure into the network error', async () => {
    const { client, fetchMock } = setup()
    const download = createEndpointDownloader(client)
    fetchMock.mockResolvedValueOnce(jsonResponse({ message: 'CSV export needs Business+', code: 'PLAN', status: 402 }, { status: 402 }))
    const refused = await caught(download(letter, { body: letterBody }))
    expect([refused.message, refused.code, refused.status]).toEqual(['CSV export needs Business+', 'PLAN', 402])
    fetchMock.mockRejectedValueOnce(new TypeError('offline'))
    expect((await caught(download(letter, { body: letterBody }))).message).toBe('Network Error - Please check your internet connection.')
  })

  it('streamEndpoint sends the JSON body with the login token and returns the body as it arrives; a refusal is the ApiError of the envelope', async () => {
    const { client, fetchMock, call } = setup({ login: 'jwt-1' })
    const stream = createEndpointStreamer(client)
    const request = { prompt: 'CroFab in Texas', templateId: null, productGroup: 'ATLAS' as const }
    fetchMock.mockResolvedValueOnce(
      new Response('event: delta\ndata: {"text":"Hi"}\n\n', { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    )
    const body = await stream(generateStream, { body: request }, { headers: { Accept: 'text/event-stream' } })
    expect(await new Response(body).text()).toBe('event: delta\ndata: {"text":"Hi"}\n\n')
    expect(call().url).toBe('/api/ai-hub/generate/stream')
    expect(call().init.method).toBe('POST')
    expect(call().init.body).toBe(JSON.stringify(request))
    expect(call().headers.get('authorization')).toBe('Bearer jwt-1')
    expect(call().headers.get('accept')).toBe('text/event-stream')
    fetchMock.mockResolvedValueOnce(
      jsonResponse({ message: 'No ATLAS credits left', code: 'CREDITS_EXHAUSTED', status: 402 }, { status: 402 }),
    )
    const refused = await caught(stream(generateStream, { body: request }))
    expect([refused.message, refused.code, refused.status]).toEqual(['No ATLAS credits left', 'CREDITS_EXHAUSTED', 402])
  })

  it('uploadEndpoint sends the multipart form as it is, with the login token, and parses the answer with the response schema', async () => {
    const { client, fetchMock, call } = setup({ login: 'jwt-1' })
    const upload = createEndpointUploader(client)
    const form = new FormData()
    form.append('files', new File(['hello'], 'Notes.txt'), 'Notes.txt')
    fetchMock.mockResolvedValueOnce(jsonResponse({ documents: [] }, { status: 201 }))
    expect(await upload(endpoints.aiHub.uploadDocuments, form)).toEqual({ documents: [] })
    expect(call().url).toBe('/api/ai-hub/documents')
    expect(call().init.method).toBe('POST')
    expect(call().init.body).toBe(form)
    expect(call().headers.get('content-type')).toBeNull()
    expect(call().headers.get('authorization')).toBe('Bearer jwt-1')
    // an answer that breaks the contract, and a refusal
    fetchMock.mockResolvedValueOnce(jsonResponse({ documents: 'none' }, { status: 201 }))
    expect((await caught(upload(endpoints.aiHub.uploadDocuments, form))).code).toBe(INVALID_RESPONSE)
    fetchMock.mockResolvedValueOnce(
      jsonResponse({ message: 'Upload at most 10 files at once', code: 'PAYLOAD_TOO_LARGE', status: 413 }, { status: 413 }),
    )
    const refused = await caught(upload(endpoints.aiHub.uploadDocuments, form))
    expect([refused.message, refused.status, refused.fromServer]).toEqual(['Upload at most 10 files at once', 413, true])
  })

  it('absoluteBaseUrl makes a relative base URL absolute against the origin and keeps an absolute one', () => {
    expect(absoluteBaseUrl('/api', 'http://localhost:3000')).toBe('http://localhost:3000/api')
    expect(absoluteBaseUrl('/api/', 'http://localhost:3000/')).toBe('http://localhost:3000/api')
    expect(absoluteBaseUrl('https://x.example/api', 'http://localhost:3000')).toBe('https://x.example/api')
  })

  it('endpointUrl keeps unfilled parameters as templates, adds the query, and the shareable token only without a login', () => {
    const guest = createEndpointUrl({ baseUrl: '/api/', getLoginToken: () => null, getShareableToken: () => 'share-1' })
    expect(guest(tile, { query: { icd10_cm_union_csv: 'I10,E11' } })).toBe(
      '/api/atlas/tiles/{z}/{x}/{y}.mvt?icd10_cm_union_csv=I10%2CE11&token=share-1',
    )
    expect(guest(tile, { params: { z: 3 }, query: {} })).toBe('/api/atlas/tiles/3/{x}/{y}.mvt?token=share-1')
    const member = createEndpointUrl({ baseUrl: '/api', getLoginToken: () => 'jwt', getShareableToken: () => 'share-1' })
    expect(member(tile, { query: { icd10_cm_union_csv: 'I10' } })).toBe('/api/atlas/tiles/{z}/{x}/{y}.mvt?icd10_cm_union_csv=I10')
  })
})
