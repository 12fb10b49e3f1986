import { ALL_ENDPOINTS, errorEnvelopeSchema, type EndpointDefinition } from '@citrus/contracts'
import { vi } from 'vitest'
import { describeIssues, endpointName } from '../lib/api-client'

export interface MockCall {
  method: string
  path: string
  query: URLSearchParams
  body: unknown
  headers: Headers
  /** the contract definition the call was matched to */
  endpoint: EndpointDefinition | undefined
}

export type MockHandler = (call: MockCall) => unknown

/** A JSON reply with a status, for handlers that need one. */
export class MockReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** false for a body that deliberately breaks the contract (see `malformed`) */
    readonly checked: boolean = true,
  ) {}
}

/** A reply with a status; a success body is checked against the endpoint's response schema, an error body against the envelope. */
export function reply(status: number, body: unknown): MockReply {
  return new MockReply(status, body)
}

/**
 * A success body that breaks the contract on purpose, for the documented "not successful" cases
 * (a sign-up answer without its message, a new key without its token...). Not checked.
 */
export function malformed(body: unknown, status = 200): MockReply {
  return new MockReply(status, body, false)
}

// ---- contract checks -----------------------------------------------------------------------------

const violations: string[] = []

function violation(message: string): void {
  violations.push(message)
  console.error(message)
}

/**
 * Throws when the test's requests or mocked bodies drifted from @citrus/contracts, naming the endpoint
 * and the fields (called after each test by test/setup.ts).
 */
export function assertNoContractViolations(): void {
  if (violations.length === 0) return
  const found = violations.splice(0)
  throw new Error(`The mock API saw calls or bodies that break the contract:\n- ${found.join('\n- ')}`)
}

const templates = ALL_ENDPOINTS.filter((endpoint) => endpoint.mount !== 'root').map((endpoint) => ({
  endpoint,
  names: [...endpoint.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string),
  pattern: new RegExp(`^${endpoint.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')}$`),
}))

/** The definition of a concrete call: a literal path wins over a template with parameters. */
export function findEndpoint(method: string, path: string): { endpoint: EndpointDefinition; params: Record<string, string> } | undefined {
  const candidates = templates
    .filter((template) => template.endpoint.method === method)
    .map((template) => ({ template, match: template.pattern.exec(path) }))
    .filter((candidate) => candidate.match !== null)
    .sort((a, b) => a.template.names.length - b.template.names.length)
  const best = candidates[0]
  if (!best?.match) return undefined
  const params: Record<string, string> = {}
  best.template.names.forEach((name, index) => (params[name] = decodeURIComponent(best.match?.[index + 1] ?? '')))
  return { endpoint: best.template.endpoint, params }
}

function queryObject(search: URLSearchParams, endpoint: EndpointDefinition): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {}
  const declared = endpoint.query ? Object.keys(endpoint.query.shape) : []
  for (const key of new Set(search.keys())) {
    // the shareable-link token rides on every guest call; it belongs to the query only where declared
    if (key === 'token' && !declared.includes('token')) continue
    const values = search.getAll(key)
    result[key] = values.length === 1 ? (values[0] as string) : values
  }
  return result
}

function checkRequest(
  name: string,
  endpoint: EndpointDefinition,
  params: Record<string, string>,
  query: URLSearchParams,
  body: unknown,
): string[] {
  const problems: string[] = []
  if (endpoint.params) {
    const parsed = endpoint.params.safeParse(params)
    if (!parsed.success) problems.push(`path parameters of ${name}: ${describeIssues(parsed.error.issues)}`)
  }
  const queryValues = queryObject(query, endpoint)
  if (endpoint.query) {
    const parsed = endpoint.query.safeParse(queryValues)
    if (!parsed.success) problems.push(`query of ${name}: ${describeIssues(parsed.error.issues)}`)
  } else if (Object.keys(queryValues).length > 0) {
    problems.push(`query of ${name}: the endpoint takes none, got ${Object.keys(queryValues).join(', ')}`)
  }
  if (endpoint.body) {
    const parsed = endpoint.body.safeParse(body)
    if (!parsed.success) problems.push(`body of ${name}: ${describeIssues(parsed.error.issues)}`)
  } else if (body !== undefined) {
    problems.push(`body of ${name}: the endpoint takes none`)
  }
  return problems
}

function checkResponse(name: string, endpoint: EndpointDefinition, status: number, body: unknown): string[] {
  if (status < 400) {
    const parsed = endpoint.response.safeParse(body)
    return parsed.success
      ? []
      : [`mocked response of ${name}: ${describeIssues(parsed.error.issues)} (use malformed() for a deliberate break)`]
  }
  const problems: string[] = []
  const envelope = errorEnvelopeSchema.safeParse(body)
  if (!envelope.success) problems.push(`mocked ${status} of ${name} is not the error envelope: ${describeIssues(envelope.error.issues)}`)
  // any endpoint may fail with 5xx; a 4xx must be one the endpoint documents
  if (status < 500 && !(endpoint.errors as readonly number[]).includes(status)) {
    problems.push(`mocked ${status} of ${name} is not among its documented errors (${endpoint.errors.join(', ')})`)
  }
  return problems
}

function json(status: number, body: unknown): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    statusText: status >= 400 ? 'Error' : 'OK',
    headers: { 'content-type': 'application/json' },
  })
}

/**
 * Stubs fetch with handlers keyed 'METHOD /path' (the concrete path relative to the '/api' base URL).
 * Each call is matched to its definition in @citrus/contracts; its parameters, query and body, and the
 * mocked answer, are checked against the definition's schemas (a break fails the test after it runs).
 * Unhandled calls answer 404 with the error envelope. Analytics events are accepted by default.
 */
export function mockApi(handlers: Record<string, MockHandler | unknown> = {}) {
  const calls: MockCall[] = []
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost')
    const path = url.pathname.replace(/^\/api/, '')
    const method = (init?.method ?? 'GET').toUpperCase()
    let body: unknown
    if (typeof init?.body === 'string') body = JSON.parse(init.body)
    const key = `${method} ${path}`
    const found = findEndpoint(method, path)
    const call: MockCall = { method, path, query: url.searchParams, body, headers: new Headers(init?.headers), endpoint: found?.endpoint }
    calls.push(call)
    if (!found) {
      violation(`${key} is not an endpoint of @citrus/contracts`)
      return json(404, { message: `No endpoint ${key}`, code: 'NOT_FOUND', status: 404 })
    }
    const name = `${endpointName(found.endpoint)} (${key})`
    const requestProblems = checkRequest(name, found.endpoint, found.params, url.searchParams, body)
    if (requestProblems.length > 0) {
      requestProblems.forEach(violation)
      return json(400, { message: requestProblems.join('; '), code: 'VALIDATION_ERROR', status: 400 })
    }
    const all: Record<string, MockHandler | unknown> = { 'POST /analytics/events': { accepted: 1 }, ...handlers }
    if (!(key in all)) return json(404, { message: `No mock for ${key}`, code: 'NOT_FOUND', status: 404 })
    const handler = all[key]
    const result = typeof handler === 'function' ? await (handler as MockHandler)(call) : handler
    if (result instanceof Error) throw result
    const status = result instanceof MockReply ? result.status : (found.endpoint.status ?? 200)
    const replyBody = result instanceof MockReply ? result.body : result
    if (!(result instanceof MockReply) || result.checked) checkResponse(name, found.endpoint, status, replyBody).forEach(violation)
    return json(status, replyBody)
  })
  vi.stubGlobal('fetch', fetchMock)
  return {
    calls,
    fetchMock,
    callsTo: (key: string) => calls.filter((call) => `${call.method} ${call.path}` === key),
  }
}
