import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import helmet from 'helmet'
import { describe, expect, it } from 'vitest'
import { HELMET_OPTIONS, securityHeaders } from './security-headers.js'

describe('securityHeaders', () => {
  it('are the headers helmet sets on a real response, computed once', () => {
    const request = new IncomingMessage(new Socket())
    const response = new ServerResponse(request)
    response.setHeader('X-Powered-By', 'Express')
    let called = false
    helmet(HELMET_OPTIONS)(request, response, () => (called = true))
    expect(called).toBe(true)
    const expected = Object.fromEntries(Object.entries(response.getHeaders()).map(([name, value]) => [name, String(value)]))
    const headers = securityHeaders(HELMET_OPTIONS)
    expect(headers).toEqual(expected)
    expect(headers['content-security-policy']).toBe(
      "default-src 'self';base-uri 'self';font-src 'self' data:;form-action 'self';frame-ancestors 'none';img-src 'self' data: blob:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline';connect-src 'self';worker-src 'self' blob:",
    )
    expect(headers['x-content-type-options']).toBe('nosniff')
    expect(headers['x-powered-by']).toBeUndefined()
    expect(Object.isFrozen(headers)).toBe(true)
  })
})
