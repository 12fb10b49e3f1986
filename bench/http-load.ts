/**
 * The load generator of the HTTP benchmarks, on its own thread: the server under test keeps its event loop
 * to itself, as it would behind real clients, instead of sharing it with the code that sends and times the
 * requests (an in-process client's fetch and JSON work used to be counted in the server's latency).
 * The requests are built beforehand on the main thread and replayed by a worker with `concurrency`
 * connections, each sending its next request when the previous one has been read to the end.
 * It sends with node:http on kept-alive connections and reads the bodies without decoding them: the bench shares
 * its 2 cores with the server, and fetch (undici: WHATWG streams, gunzip of every gzip body) cost that thread
 * more CPU per request than the server's own trivial answer, which a real client pays on its own machine.
 */
import { Worker } from 'node:worker_threads'

export interface BenchRequest {
  method?: 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'PUT'
  /** path and query, appended to the base URL */
  path: string
  headers?: Record<string, string>
  body?: string
  /** the status a correct answer has (default 200); any other stops the run with an error */
  status?: number
}

export interface LoadResult {
  /** per request, in milliseconds, sorted ascending */
  latencies: number[]
  wallMs: number
  /** requests per second over the run */
  throughput: number
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const http = require('node:http')
const { base, list, concurrency } = workerData
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
const url = new URL(base)
// one request on a kept-alive connection; resolves with the status once the body has been read to the end
// (not decoded: a gzip body stays compressed, as the server sent it)
const send = (request) =>
  new Promise((resolve, reject) => {
    const headers = { 'accept-encoding': 'gzip, deflate', ...request.headers }
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body)
    const req = http.request(
      { agent, host: url.hostname, port: url.port, method: request.method || 'GET', path: request.path, headers },
      (response) => {
        response.on('data', () => {})
        response.on('end', () => resolve(response.statusCode))
        response.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(request.body)
  })
;(async () => {
  const latencies = new Array(list.length)
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: Math.min(concurrency, list.length) }, async () => {
      for (let i = next++; i < list.length; i = next++) {
        const request = list[i]
        const t = performance.now()
        const status = await send(request)
        latencies[i] = performance.now() - t
        const expected = request.status || 200
        if (status !== expected) throw new Error(request.path + ': ' + status + ' (expected ' + expected + ')')
      }
    }),
  )
  agent.destroy()
  parentPort.postMessage({ latencies, wallMs: performance.now() - started })
})().catch((error) => parentPort.postMessage({ error: String((error && error.stack) || error) }))
`

/** Replays the requests against `base` (http://host:port) from a worker thread with `concurrency` in flight. */
export function runHttpLoad(base: string, list: readonly BenchRequest[], concurrency: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { base, list, concurrency } })
    worker.once('message', (message: { latencies: number[]; wallMs: number } | { error: string }) => {
      void worker.terminate()
      if ('error' in message) return reject(new Error(message.error))
      const latencies = [...message.latencies].sort((a, b) => a - b)
      resolve({ latencies, wallMs: message.wallMs, throughput: (list.length * 1000) / message.wallMs })
    })
    worker.once('error', reject)
  })
}

/** The q-quantile (0..1) of ascending latencies, nearest rank. */
export function quantileOf(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
}

/** A latency in milliseconds as the benches print it: 2 decimals below 10, 1 below 100, else whole. */
export const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0))
