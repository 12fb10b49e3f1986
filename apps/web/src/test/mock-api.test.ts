import { endpoints } from '@citrus/contracts'
import { describe, expect, it, vi } from 'vitest'
import { assertNoContractViolations, findEndpoint, malformed, mockApi, reply } from './mock-api'

const post = (path: string, body: unknown) =>
  fetch(`/api${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })

/** The check's failure message, or null when the test's calls kept to the contract. */
function violations(): string | null {
  try {
    assertNoContractViolations()
    return null
  } catch (error) {
    return (error as Error).message
  }
}

describe('mock API contract checks', () => {
  // each case breaks the contract on purpose; the console.error of the mock is expected
  const quiet = () => vi.spyOn(console, 'error').mockImplementation(() => {})

  it('matches a concrete call to its definition; a literal path wins over a template', () => {
    expect(findEndpoint('GET', '/super-admin/company/3/users')).toEqual({
      endpoint: endpoints.superAdmin.companyUsers,
      params: { id: '3' },
    })
    expect(findEndpoint('GET', '/super-admin/company')?.endpoint).toBe(endpoints.superAdmin.listCompanies)
    expect(findEndpoint('PUT', '/super-admin/company')?.endpoint).toBe(endpoints.superAdmin.updateCompany)
    expect(findEndpoint('GET', '/shareable-url/validate-shareable-link')?.endpoint).toBe(endpoints.shareableUrl.validate)
    expect(findEndpoint('GET', '/no/such/endpoint')).toBeUndefined()
  })

  it('passes calls and answers that keep to the contract', async () => {
    mockApi({ 'POST /users/login': { token: 'jwt' } })
    const response = await post('/users/login', { email: 'ada@example.com', password: 'secret' })
    expect(await response.json()).toEqual({ token: 'jwt' })
    expect(violations()).toBeNull()
  })

  it('fails a test whose mocked answer drifted from the response schema, naming the endpoint and the field', async () => {
    quiet()
    mockApi({ 'POST /users/login': { jwt: 'renamed field' } })
    await post('/users/login', { email: 'ada@example.com', password: 'secret' })
    expect(violations()).toMatch(/mocked response of POST \/users\/login \(POST \/users\/login\): token: Invalid input/)
  })

  it('answers 400 to a request body that breaks the request schema, and fails the test', async () => {
    quiet()
    const api = mockApi({ 'POST /users/login': { token: 'jwt' } })
    const response = await post('/users/login', { email: 'ada@example.com' })
    expect(response.status).toBe(400)
    expect(api.callsTo('POST /users/login')).toHaveLength(1)
    expect(violations()).toMatch(/body of POST \/users\/login .*password/)
  })

  it('checks path parameters and queries', async () => {
    quiet()
    mockApi({ 'GET /super-admin/company/abc/users': { users: [] }, 'GET /admin/api-token': [] })
    await fetch('/api/super-admin/company/abc/users')
    await fetch('/api/admin/api-token?company_id=-1')
    const found = violations()
    expect(found).toMatch(/path parameters of GET \/super-admin\/company\/\{id\}\/users/)
    expect(found).toMatch(/query of GET \/admin\/api-token .*company_id/)
  })

  it('accepts the shareable token on any guest call, and takes it as the query where declared', async () => {
    mockApi({ 'GET /company/products': { product_groups: [] } })
    await fetch('/api/company/products?token=share.jwt')
    expect(violations()).toBeNull()
  })

  it('fails calls to paths that are no endpoint', async () => {
    quiet()
    mockApi()
    const response = await fetch('/api/no/such/endpoint')
    expect(response.status).toBe(404)
    expect(violations()).toMatch(/GET \/no\/such\/endpoint is not an endpoint of @citrus\/contracts/)
  })

  it('checks error answers: the envelope, and a 4xx the endpoint documents; any 5xx is allowed', async () => {
    quiet()
    mockApi({
      'POST /users/login': reply(404, { message: 'Nope', code: 'NOT_FOUND', status: 404 }),
      'POST /users/user-signup': reply(500, { message: 'down', code: 'INTERNAL_ERROR', status: 500 }),
      'POST /users/password-reset-email': reply(400, { error: 'not the envelope' }),
    })
    await post('/users/login', { email: 'ada@example.com', password: 'x' })
    await post('/users/user-signup', { email: 'ada@example.com', password: 'x', activation_key: 'k' })
    await post('/users/password-reset-email', { email: 'ada@example.com' })
    const found = violations() ?? ''
    expect(found).toMatch(/mocked 404 of POST \/users\/login .* is not among its documented errors \(400, 401, 429\)/)
    expect(found).toMatch(/mocked 400 of POST \/users\/password-reset-email .* is not the error envelope/)
    expect(found).not.toMatch(/user-signup/)
  })

  it('leaves a deliberately malformed answer unchecked', async () => {
    mockApi({ 'POST /users/user-signup': malformed({}), 'POST /users/login': malformed({}, 500) })
    await post('/users/user-signup', { email: 'ada@example.com', password: 'x', activation_key: 'k' })
    expect((await post('/users/login', { email: 'ada@example.com', password: 'x' })).status).toBe(500)
    expect(violations()).toBeNull()
  })
})
