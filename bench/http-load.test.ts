import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BROWSER_ACCEPT_ENCODING, runHttpLoad, wrkAvailable, type LoadGenerator } from './http-load.ts'

/** A server that counts what it is sent and answers each path's status. */
let server: http.Server
let base = ''
const seen: { method: string; path: string; body: string; encoding: string | undefined; auth: string | undefined }[] = []

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        body,
        encoding: req.headers['accept-encoding'],
        auth: req.headers.authorization,
      })
      const status = req.url?.startsWith('/bad') ? 400 : 200
      setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end('x'.repeat(2000)), 2)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const generators: LoadGenerator[] = wrkAvailable() ? ['node', 'wrk'] : ['node']

describe.each(generators)('runHttpLoad with %s', (generator) => {
  it('sends the list with its methods, headers and bodies, and times every answer', async () => {
    seen.length = 0
    const list = Array.from({ length: 60 }, (_, i) => ({
      method: i % 3 === 0 ? ('POST' as const) : ('GET' as const),
      path: `/ok/${i}?q=${encodeURIComponent('ä "x" \\')}`,
      headers: { authorization: `Bearer t${i}` },
      ...(i % 3 === 0 ? { body: JSON.stringify({ i, text: 'é\n"q"' }) } : {}),
    }))
    const result = await runHttpLoad(base, list, 4, generator)
    // every request of the list was sent once (wrk may send a few more while it stops: never fewer)
    for (const request of list) {
      const got = seen.find((s) => s.path === request.path)
      expect(got, request.path).toBeDefined()
      expect(got!.method).toBe(request.method)
      expect(got!.auth).toBe(request.headers.authorization)
      expect(got!.body).toBe(request.body ?? '')
      expect(got!.encoding).toBe(BROWSER_ACCEPT_ENCODING)
    }
    expect(seen.length).toBeGreaterThanOrEqual(list.length)
    expect(seen.length).toBeLessThan(list.length + 4 + 1)
    expect(result.latencies.length).toBeGreaterThan(0)
    expect([...result.latencies].sort((a, b) => a - b)).toEqual(result.latencies)
    // each answer waits 2 ms in the server
    expect(result.latencies[Math.floor(result.latencies.length / 2)]).toBeGreaterThanOrEqual(1.5)
    expect(result.throughput).toBeGreaterThan(0)
    expect(result.wallMs).toBeGreaterThan(0)
  })

  it('fails on a status the list does not expect, and accepts an expected 400', async () => {
    await expect(runHttpLoad(base, [{ path: '/ok/1' }, { path: '/bad/1' }], 2, generator)).rejects.toThrow(/400/)
    await expect(runHttpLoad(base, [{ path: '/ok/1' }, { path: '/bad/1', status: 400 }], 2, generator)).resolves.toMatchObject({
      throughput: expect.any(Number),
    })
  })
})
