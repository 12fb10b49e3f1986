import { describe, expect, it, vi } from 'vitest'
import { resolveApiBaseUrl } from '../config/env'
import { ApiError, buildPath, createApiClient, toApiError } from './api-client'

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
  const call = (index = 0) => {
    const args = fetchMock.mock.calls[index]
    if (!args) throw new Error(`no fetch call #${index}`)
    const [url, init] = args
    return { url: String(url), init: init ?? {}, headers: new Headers(init?.headers) }
  }
  return { client, fetchMock, call }
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
    await client.post('/users/login', { email: 'a@b.co', password: 'x' })
    expect(call().url).toBe('/api/users/login')
    expect(call().init.method).toBe('POST')
    expect(call().init.body).toBe(JSON.stringify({ email: 'a@b.co', password: 'x' }))
    expect(call().headers.get('content-type')).toBe('application/json')
  })

  it('works with an absolute base URL and query parameters', async () => {
    const { client, call } = setup({ baseUrl: 'https://api.example.com/' })
    await client.get('/admin/api-token', { query: { company_id: 7, skip: undefined } })
    expect(call().url).toBe('https://api.example.com/admin/api-token?company_id=7')
  })
})

describe('authentication', () => {
  it('sends a login token as a Bearer header and no token query parameter', async () => {
    const { client, call } = setup({ login: 'login.jwt.token', shareable: 'share.jwt.token' })
    await client.get('/users/info')
    expect(call().headers.get('authorization')).toBe('Bearer login.jwt.token')
    expect(call().url).toBe('/api/users/info')
  })

  it('sends an active shareable token as the token query parameter when there is no login token', async () => {
    const { client, call } = setup({ shareable: 'share.jwt.token' })
    await client.get('/care-select/rankings', { query: { zip: '98101' } })
    expect(call().headers.get('authorization')).toBeNull()
    expect(call().url).toBe('/api/care-select/rankings?zip=98101&token=share.jwt.token')
  })

  it('sends neither without tokens', async () => {
    const { client, call } = setup()
    await client.get('/company/products')
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
    const error = await caught(client.get('/users/info'))
    expect(error.message).toBe('Token Error')
    expect(error.systemMessage).toBe('storage blocked')
    expect(fetchMock).not.toHaveBeenCalled()
  })
})

describe('merging identical concurrent requests', () => {
  it('makes one fetch for the same method, URL and body in flight and gives both callers the result', async () => {
    let resolve: (value: Response) => void = () => {}
    const fetchMock = vi.fn<typeof fetch>(() => new Promise<Response>((r) => (resolve = r)))
    const client = createApiClient({ baseUrl: '/api', fetch: fetchMock })
    const first = client.get<{ product_groups: string[] }>('/company/products')
    const second = client.get<{ product_groups: string[] }>('/company/products')
    await Promise.resolve()
    expect(fetchMock).toHaveBeenCalledTimes(1)
    resolve(jsonResponse({ product_groups: ['ATLAS'] }))
    await expect(first).resolves.toEqual({ product_groups: ['ATLAS'] })
    await expect(second).resolves.toEqual({ product_groups: ['ATLAS'] })
  })

  it('does not merge requests that differ in method, URL or body, nor sequential ones', async () => {
    const { client, fetchMock } = setup()
    await Promise.all([
      client.post('/feedback', { rating: 3 }),
      client.post('/feedback', { rating: 4 }),
      client.get('/feedback'),
      client.get('/company/products'),
    ])
    expect(fetchMock).toHaveBeenCalledTimes(4)
    await client.get('/company/products')
    expect(fetchMock).toHaveBeenCalledTimes(5)
  })

  it('shares a failure with every merged caller', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () =>
      jsonResponse({ message: 'Nope', code: 'FORBIDDEN', status: 403 }, { status: 403, statusText: 'Forbidden' }),
    )
    const client = createApiClient({ baseUrl: '/api', fetch: fetchMock })
    const results = await Promise.allSettled([client.get('/x'), client.get('/x')])
    expect(fetchMock).toHaveBeenCalledTimes(1)
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
  })
})

describe('error normalisation (spec 1 §8)', () => {
  it('turns the server envelope into an ApiError with message, code, status, errors and status text', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () =>
      jsonResponse(
        { message: 'Email is not valid', code: 'VALIDATION_ERROR', status: 400, errors: [{ path: 'body.email', message: 'Email is not valid' }] },
        { status: 400, statusText: 'Bad Request' },
      ),
    )
    const client = createApiClient({ baseUrl: '/api', fetch: fetchMock })
    const error = await caught(client.post('/users/user-signup', {}))
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
    const error = await caught(client.get('/users/info'))
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
    const error = await caught(client.get('/users/info'))
    expect(error.message).toBe('Network Error - Please check your internet connection.')
    expect(error.code).toBe(0)
    expect(error.status).toBe(0)
  })

  it('returns undefined for empty success bodies', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => new Response(null, { status: 204 }))
    const client = createApiClient({ baseUrl: '/api', fetch: fetchMock })
    await expect(client.delete('/admin/api-token', { id: 1 })).resolves.toBeUndefined()
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

  it('is applied by the client with the params option', async () => {
    const { client, call } = setup()
    await client.get('/super-admin/company/{id}/users', { params: { id: 12 } })
    expect(call().url).toBe('/api/super-admin/company/12/users')
    await expect(client.get('/super-admin/company/{id}/users')).rejects.toThrow(
      'Missing required path parameters for /super-admin/company/{id}/users: id',
    )
  })
})
