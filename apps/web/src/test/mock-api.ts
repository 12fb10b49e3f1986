import { vi } from 'vitest'

export interface MockCall {
  method: string
  path: string
  query: URLSearchParams
  body: unknown
  headers: Headers
}

export type MockHandler = (call: MockCall) => unknown

/** A JSON reply with a status, for handlers that need one. */
export class MockReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

export function reply(status: number, body: unknown): MockReply {
  return new MockReply(status, body)
}

/**
 * Stubs fetch with handlers keyed 'METHOD /path' (path relative to the '/api' base URL).
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
    const call: MockCall = { method, path, query: url.searchParams, body, headers: new Headers(init?.headers) }
    calls.push(call)
    const key = `${method} ${path}`
    const all: Record<string, MockHandler | unknown> = { 'POST /analytics/events': { accepted: 1 }, ...handlers }
    if (!(key in all)) {
      return new Response(JSON.stringify({ message: `No mock for ${key}`, code: 'NOT_FOUND', status: 404 }), {
        status: 404,
        headers: { 'content-type': 'application/json' },
      })
    }
    const handler = all[key]
    let result = typeof handler === 'function' ? await (handler as MockHandler)(call) : handler
    if (result instanceof Error) throw result
    const status = result instanceof MockReply ? result.status : 200
    if (result instanceof MockReply) result = result.body
    return new Response(result === undefined ? null : JSON.stringify(result), {
      status,
      statusText: status >= 400 ? 'Error' : 'OK',
      headers: { 'content-type': 'application/json' },
    })
  })
  vi.stubGlobal('fetch', fetchMock)
  return {
    calls,
    fetchMock,
    callsTo: (key: string) => calls.filter((call) => `${call.method} ${call.path}` === key),
  }
}
