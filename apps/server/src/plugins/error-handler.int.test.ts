import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import multipart from '@fastify/multipart'
import { HTTP_MESSAGES } from '@citrus/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testConfig, useTestApp } from '../../../../test/helpers.ts'
import { buildApp } from '../app.ts'

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

/**
 * Issue 32 §9: a malformed multipart/form-data body (no boundary, a boundary the body never uses, a body cut
 * short) is the client's fault: 400 in the envelope, and nothing logged at error level.
 */
describe('malformed multipart bodies', () => {
  const lines: string[] = []
  let app: Awaited<ReturnType<typeof buildApp>>

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'))
        done()
      },
    })
    app = await buildApp(testConfig({}, { OUTBOX_POLL_INTERVAL_MS: '0' }), { logger: { level: 'info', stream } })
    // a route that reads multipart bodies as the AI Hub's upload does
    await app.register(async (scope) => {
      await scope.register(multipart)
      scope.post('/multipart-probe', async (request) => {
        let files = 0
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            await part.toBuffer()
            files++
          }
        }
        return { files }
      })
    })
    await app.ready()
  })
  afterAll(async () => {
    await app.close()
  })

  const body =
    '--abc\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--abc--\r\n'

  it('400 in the envelope, no error logged', async () => {
    const good = await app.inject({
      method: 'POST',
      url: '/multipart-probe',
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
      body,
    })
    expect([good.statusCode, good.json()]).toEqual([200, { files: 1 }])
    for (const [contentType, payload] of [
      ['multipart/form-data', body], // no boundary
      ['multipart/form-data; boundary=xyz', body], // a boundary the body does not use
      ['multipart/form-data; boundary=', body], // an empty one
      ['multipart/form-data; boundary=abc', body.slice(0, 60)], // cut short in a part header
      ['multipart/form-data; boundary=abc', body.slice(0, 110)], // cut short in a file
    ] as const) {
      lines.length = 0
      const response = await app.inject({
        method: 'POST',
        url: '/multipart-probe',
        headers: { 'content-type': contentType },
        body: payload,
      })
      expect([response.statusCode, response.json()]).toEqual([
        400,
        { message: HTTP_MESSAGES.malformedMultipart, code: 'BAD_REQUEST', status: 400 },
      ])
      expect(lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([])
    }
  })
})
