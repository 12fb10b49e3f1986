import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../../../../test/helpers.ts'

/**
 * Issue 9 §2: requests refused by Node's HTTP parser or by the router, before any route runs, still get
 * { message, code, status } and never an echo of the URL. Raw sockets send what inject cannot.
 */

interface RawResponse {
  status: number
  headers: string
  body: string
}

function rawRequest(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const [head = '', ...rest] = text.split('\r\n\r\n')
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)
      resolve({ status, headers: head, body: rest.join('\r\n\r\n') })
    })
    socket.write(request)
  })
}

const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`
const post = (path: string, contentType: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`

describe('framework errors use the error envelope', () => {
  const ctx = useTestApp()
  let port = 0

  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    port = (ctx.app.server.address() as AddressInfo).port
  })

  it('431 for a URL longer than the header limit', async () => {
    const marker = 'LONGURLMARKER'
    const response = await rawRequest(port, get(`/api/version?q=${marker}${'a'.repeat(20_000)}`))
    expect(response.status).toBe(431)
    expect(response.headers).toMatch(/content-type: application\/json; charset=utf-8/i)
    expect(JSON.parse(response.body)).toEqual({
      message: 'The request URL or headers are too large',
      code: 'HEADERS_TOO_LARGE',
      status: 431,
    })
    expect(response.body).not.toContain(marker)
  })

  it('431 for headers over the limit', async () => {
    const response = await rawRequest(port, get('/api/version', `X-Big: ${'b'.repeat(20_000)}\r\n`))
    expect(response.status).toBe(431)
    expect(JSON.parse(response.body)).toEqual({
      message: 'The request URL or headers are too large',
      code: 'HEADERS_TOO_LARGE',
      status: 431,
    })
  })

  it('400 for a request that is not HTTP', async () => {
    const response = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n')
    expect(response.status).toBe(400)
    expect(JSON.parse(response.body)).toEqual({ message: 'The request is not valid HTTP', code: 'BAD_REQUEST', status: 400 })
  })

  it('414 for an over-long path parameter, without echoing the path', async () => {
    const marker = 'PARAMMARKER'
    for (const request of [
      get(`/api/admin/permission/${marker}${'x'.repeat(300)}`),
      post(`/api/shareable-url/${marker}${'x'.repeat(300)}/revoke`, 'application/json', '{}'),
    ]) {
      const response = await rawRequest(port, request)
      expect(response.status).toBe(414)
      expect(JSON.parse(response.body)).toEqual({
        message: 'A path parameter of the request URL is too long',
        code: 'URI_TOO_LONG',
        status: 414,
      })
      expect(response.body).not.toContain(marker)
    }
  })

  it('400 for bad percent-encoding in the path, without echoing it', async () => {
    const response = await rawRequest(port, get('/api/admin/permission/%E0%A4%A'))
    expect(response.status).toBe(400)
    expect(JSON.parse(response.body)).toEqual({
      message: 'The request URL is not valid (bad percent-encoding)',
      code: 'BAD_REQUEST',
      status: 400,
    })
    expect(response.body).not.toContain('%E0')
  })

  it('400 for malformed JSON and an empty JSON body', async () => {
    for (const body of ['{"email": "a@b.co", ', '']) {
      const response = await rawRequest(port, post('/api/users/login', 'application/json', body))
      expect(response.status).toBe(400)
      expect(JSON.parse(response.body)).toEqual({ message: 'Request body is not valid JSON', code: 'BAD_REQUEST', status: 400 })
    }
  })

  it('415 for a content type no parser accepts; 400 for a text body where an object is expected', async () => {
    const xml = await rawRequest(port, post('/api/users/login', 'application/xml', '<login/>'))
    expect(xml.status).toBe(415)
    expect(JSON.parse(xml.body)).toEqual({ message: 'Unsupported content type', code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 })
    const text = await rawRequest(port, post('/api/users/login', 'text/plain', 'email=a@b.co'))
    expect(text.status).toBe(400)
    expect(JSON.parse(text.body)).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 })
  })

  it('a bad Content-Length gets the envelope and a fixed text', async () => {
    const response = await rawRequest(
      port,
      'POST /api/users/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1\r\nConnection: close\r\n\r\n{"email":"x"}',
    )
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
    const body = JSON.parse(response.body) as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(expect.arrayContaining(['code', 'message', 'status']))
  })
})
